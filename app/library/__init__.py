"""The library in the window: the side panel of courses and files, what its rows do, and the
ways files come in (dropped or opened, from a URL, from followed folders), with the import
bar that shows a run's progress.

    panel.py           LibraryPanel: courses, their files, each file's state
    rows.py            what a row holds and shows, and the panel's column widths
    open_courses.py    which courses are open, as the student left them
    panel_input.py     a row's keys, Enter, and its menu (row_menu.py) opened at the row
    changes.py         what changed in the library (one notification), and the panel kept
                       in step with it row by row, the search run again when it matters
    actions.py         what a row does: open, show the folder, export, remove
    study_exports.py   a lecture's handout and a course's flashcards, from the row menus
    import_bar.py      imports one at a time on their own worker, with progress and Cancel
    url_import.py      File > Add from URL (its dialog and the fetch)
    watch_folders.py   courses that follow their folder (File > Follow course folders…)
"""
