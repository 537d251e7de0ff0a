"""Notes on moments in the window: a note added where the user is (the moment playing, a
slide's page, a line of code, a result), and the Notes panel that lists them.

    places.py   how a note's place reads ("lecture-01 · 12:34", "slides · p. 5",
                "code.zip/sort.py:42"), and the Spot a note is about to be added at
    editor.py   the one-line editor that asks for a note's text (Enter saves, Esc cancels)
    taking.py   NoteTaker: asks, then adds the note on the task pool
    panel.py    NotesPanel: every course's notes in lecture order; open, edit, remove
    tree.py     its tree: a note drawn as its place (bold) over its text, wrapped
    side.py     SideTabs: the library panel and the Notes panel as two tabs, and the
                wiring of notes between the preview, the search and the panel

The notes themselves are the engine's (Library.add_note, notes, remove_note).
"""
