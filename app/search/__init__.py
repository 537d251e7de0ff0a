"""The search side of the window: the box, its filters and history, and the results.

    pane.py          SearchPane: box, course and kind filters, results, status line
    pane_widgets.py  the pane's box, filters and status line as made, described
    filter_chip.py   the chip naming a course filter, with a way out of it
    history.py       the queries searched, walked back with Up in an empty box
    result_list.py   the list: a row per lecture or file, "Weaker matches", the empty note
    row_menu.py      a row's menu (open, copy link or quote, add a note) and kind icons
    results.py       one result row: snippet, thumbnail, a lecture's other moments

Searches run on the window's task runner (app/tasks.py); results of an older query than
the newest are dropped, so the box never waits on the engine.
"""
