"""The frozen app's entry point: the same `coursedex` command as the source tree's."""

from app.launcher import main

if __name__ == "__main__":
    raise SystemExit(main())
