"""The player: a lecture playing from an exact time, with its transcript beside it.

    view.py         PlayerView: the picture, the transcript column, the controls
    picture.py      the video, or a panel for audio, with the subtitle over it; its clicks
    bindings.py     what the controls and the keys do: each connected to the view's action
    control_bar.py  the seek bar, buttons, speed and volume: signals the view connects to
    controls.py     the seek bar (matches and chapters marked), the subtitle, the focus ring
    icons.py        the buttons' glyphs, drawn in the palette's colours
    full_screen.py  the player alone on the screen (in a window of its own), and back
    keys.py         which keys it takes, the rule for text boxes and focused controls,
                    Help > Keyboard shortcuts
    go_to.py        G: go to a time the user types
    transcript.py   the column beside the picture: search inside, chapters, the lines, the
                    line being spoken kept in view
    memory.py       the speed and where each lecture was left, kept between starts
    playback.py     the engines behind it: libVLC, or Qt Multimedia where libVLC cannot load
    libvlc.py       the user's own VLC, found where it is installed (no build carries one)

Nothing from libVLC's own threads touches a widget: the view polls its backend from a
QTimer on the UI thread.
"""
