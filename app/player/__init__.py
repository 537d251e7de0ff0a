"""The player: a lecture playing from an exact time, with its transcript beside it.

    view.py         PlayerView: the picture, the transcript column and the controls together
    chrome.py       its buttons, speed and volume, its window-wide keys and full screen
    controls.py     the seek bar (matches and chapters marked), icons, the subtitle
    keys.py         which keys it takes, the rule for text boxes, Help > Keyboard shortcuts
    transcript.py   the column beside the picture: search inside, chapters, the lines
    memory.py       the speed and where each lecture was left, kept between starts
    playback.py     the engines behind it: libVLC, or Qt Multimedia where libVLC cannot load

Nothing from libVLC's own threads touches a widget: the view polls its backend from a
QTimer on the UI thread.
"""
