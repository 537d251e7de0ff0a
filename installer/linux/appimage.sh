#!/usr/bin/env bash
# Packs the Linux bundle that installer/build.sh froze (dist/coursedex/, from the one spec
# installer/coursedex.spec with the models of installer/models.toml put in place by
# installer/prepare_models.py) into dist/Coursedex-<version>-<arch>.AppImage.
#
#   installer/linux/appimage.sh            (after installer/build.sh)
#
# The AppDir gets the bundle under usr/lib/coursedex/, an AppRun that starts it, the desktop
# entry installer/linux/coursedex.desktop, the icon (resources/icons/coursedex.svg and .png)
# and the MIME types of installer/linux/coursedex-mime.xml, then appimagetool packs it.
#
# appimagetool is not packaged by Debian or PyPI; get it from
# https://github.com/AppImage/appimagetool/releases (the release workflow downloads it). It is
# itself an AppImage: without FUSE it runs with APPIMAGE_EXTRACT_AND_RUN=1, set below. The
# current appimagetool also downloads the AppImage runtime from GitHub unless it is given
# one with APPIMAGETOOL_RUNTIME=/path/runtime-<arch> (passed as --runtime-file).
#
# Here (no appimagetool: its download is blocked) the script lays out the AppDir and stops
# with exit 2; the AppImage itself is built only in .github/workflows/release.yml.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root="$(pwd)"

die() { printf 'appimage: %s\n' "$*" >&2; exit 1; }

bundle="$root/dist/coursedex"
desktop="$root/installer/linux/coursedex.desktop"
mime="$root/installer/linux/coursedex-mime.xml"
svg="$root/resources/icons/coursedex.svg"
png="$root/resources/icons/coursedex.png"
appdir="$root/build/AppDir"

[ -x "$bundle/coursedex" ] || die "no frozen bundle in dist/coursedex/: run installer/build.sh first"
for file in "$desktop" "$mime" "$svg" "$png"; do
    [ -f "$file" ] || die "missing $file"
done

# The version lives in engine/__init__.py; read it without Python, which the bundle
# carries but the machine may not.
version="$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' "$root/engine/__init__.py")"
[ -n "$version" ] || die "no __version__ in engine/__init__.py"
arch="$(uname -m)"
# The desktop entry names the icon; the AppDir's top-level icon must carry that name.
icon="$(sed -n 's/^Icon=//p' "$desktop" | head -n 1)"
[ -n "$icon" ] || die "$desktop has no Icon= line"

echo "appimage: AppDir for Coursedex $version ($arch) in build/AppDir"
rm -rf "$appdir"
mkdir -p "$appdir/usr/lib" "$appdir/usr/share/applications" \
    "$appdir/usr/share/icons/hicolor/256x256/apps" "$appdir/usr/share/icons/hicolor/scalable/apps" \
    "$appdir/usr/share/mime/packages"
cp -a "$bundle" "$appdir/usr/lib/coursedex"
# Without TryExec: `coursedex` is not on PATH when the AppImage runs, and desktops hide an
# entry whose TryExec is missing once an integration tool (appimaged) installs it.
sed '/^TryExec=/d' "$desktop" >"$appdir/coursedex.desktop"
cp "$appdir/coursedex.desktop" "$appdir/usr/share/applications/coursedex.desktop"
cp "$png" "$appdir/usr/share/icons/hicolor/256x256/apps/$icon.png"
cp "$svg" "$appdir/usr/share/icons/hicolor/scalable/apps/$icon.svg"
cp "$png" "$appdir/$icon.png"
ln -s "$icon.png" "$appdir/.DirIcon"
# Not registered by the AppImage itself (nothing is installed); desktop integration tools
# (appimaged, Gear Lever) read it from here.
cp "$mime" "$appdir/usr/share/mime/packages/coursedex-mime.xml"

cat >"$appdir/AppRun" <<'EOF'
#!/bin/sh
# Starts the frozen Coursedex inside the AppImage with the caller's arguments.
here="$(dirname "$(readlink -f "$0")")"
exec "$here/usr/lib/coursedex/coursedex" "$@"
EOF
chmod 755 "$appdir/AppRun"

if ! command -v appimagetool >/dev/null; then
    cat >&2 <<EOF
appimage: appimagetool is not on PATH; the AppDir is ready in build/AppDir.
appimage: get it from https://github.com/AppImage/appimagetool/releases
appimage: (appimagetool-$arch.AppImage, chmod +x, put it on PATH) and run this again.
EOF
    exit 2
fi

out="$root/dist/Coursedex-$version-$arch.AppImage"
rm -f "$out"
export APPIMAGE_EXTRACT_AND_RUN="${APPIMAGE_EXTRACT_AND_RUN:-1}"
runtime_args=()
if [ -n "${APPIMAGETOOL_RUNTIME:-}" ]; then runtime_args=(--runtime-file "$APPIMAGETOOL_RUNTIME"); fi
ARCH="$arch" appimagetool ${runtime_args[@]+"${runtime_args[@]}"} "$appdir" "$out"
echo "appimage: $out ($(du -h "$out" | cut -f1))"
