"""What a result opens into, beside the results: the preview stack and its viewers.

    preview.py      PreviewPane: the player, a slide page or a file at its line, in one stack
    slide_view.py   a deck's page fitted to the view, rendered off the UI thread
    pages.py        page images (PDF through PDFium, a .pptx slide's text), cached
    code_view.py    a file at the matched line, highlighted a slice at a time

Pages render off the UI thread and code is coloured a slice per turn of the event loop, so
opening a big deck or file does not stall the window.
"""
