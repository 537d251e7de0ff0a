"""The engine for other tools and other sources: what a library offers beyond import and search.

links.py              coursedex:// links to a moment, made and resolved
url_import.py         a lecture from a URL (yt-dlp), its origin kept
fetching.py           the download: size limit, stall timeout, web addresses only, clean-up
watch.py              watch folders: what is added or changed there is imported
mcp_server.py         `coursedex mcp`: search and read for AI assistants (MCP, stdio)
mcp_stdio.py          its stdio transport: every line answered, malformed JSON too
transcript_export.py  a lecture's transcript as .srt or .txt
documents.py          a lecture's transcript and chapters, a file's text for the window
handout.py            a lecture's handout: each slide shown beside what was said, notes in place
handout_render.py     the handout written as one HTML file (print stylesheet) or Markdown
flashcards.py         a course's flashcards: one per note, or per slide without notes
anki.py               flashcards written as an Anki package (.apkg, genanki), stable ids
pictures.py           a PDF page drawn to PNG, a keyframe thumbnail: for handouts and cards
"""
