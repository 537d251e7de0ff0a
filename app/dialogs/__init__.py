"""The window's dialogs and the user's settings they edit.

    settings.py      the Settings dialog and the theme (the settings it edits, their file and
                     their holder are app/settings_model.py)
    models_page.py   the Models page of Settings: install, verify, remove
    about.py         Help > About: versions, folders, models and their licences

The Add from URL and Follow course folders dialogs live beside the code they drive, in
app/library/ (url_import.py, watch_folders.py).
"""
