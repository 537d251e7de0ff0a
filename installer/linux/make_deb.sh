#!/usr/bin/env bash
# Packs the frozen app (dist/coursedex/, from installer/coursedex.spec) into a .deb:
#
#   installer/linux/make_deb.sh [DIST_DIR] [OUT_DIR]      -> OUT_DIR/coursedex_<ver>_<arch>.deb
#
# /opt/coursedex/            the one-folder bundle (models and demo course inside)
# /usr/bin/coursedex         a link to it: the window with no arguments, else the CLI
# /usr/share/applications/   the desktop entry (Education menu; coursedex:// links; MIME types so file managers
#                            offer "Open with Coursedex" and drops on the launcher work)
# /usr/share/icons/hicolor/  the icon, scalable and 16-256 px
# /usr/share/mime/packages/  the types older shared-mime-info lacks (.ipynb, .srt, .vtt)
# Depends is worked out like dpkg-shlibdeps: the system libraries the bundle's binaries load
# that the bundle does not carry, mapped to their packages with dpkg -S, and libVLC with the
# VLC plugins that play and show video: the Linux build's player is libVLC (no Qt Multimedia
# in it, installer/coursedex.spec says why). Menus, icons and MIME caches are refreshed by the
# dpkg triggers of desktop-file-utils and shared-mime-info.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dist="${1:-$root/dist/coursedex}"
out="${2:-$root/dist}"
version="$(sed -n 's/^__version__ = "\(.*\)"/\1/p' "$root/engine/__init__.py")"
arch="$(dpkg --print-architecture)"
[ -x "$dist/coursedex" ] || { echo "make_deb: no frozen app in $dist (run pyinstaller first)" >&2; exit 1; }

stage="$(mktemp -d "${TMPDIR:-/tmp}/coursedex-deb.XXXXXX")"
trap 'rm -rf "$stage"' EXIT
pkg="$stage/coursedex_${version}_${arch}"
mkdir -p "$pkg/DEBIAN" "$pkg/opt" "$pkg/usr/bin" "$pkg/usr/share/applications" \
    "$pkg/usr/share/mime/packages" "$pkg/usr/share/doc/coursedex" \
    "$pkg/usr/share/icons/hicolor/scalable/apps"
cp -a "$dist" "$pkg/opt/coursedex"
ln -s /opt/coursedex/coursedex "$pkg/usr/bin/coursedex"
install -m 644 "$root/installer/linux/coursedex.desktop" "$pkg/usr/share/applications/"
install -m 644 "$root/installer/linux/coursedex-mime.xml" "$pkg/usr/share/mime/packages/coursedex.xml"
install -m 644 "$root/resources/icons/coursedex.svg" "$pkg/usr/share/icons/hicolor/scalable/apps/"
icons="$root/build/icons"
for size in 16 32 48 64 128 256; do
    png="$icons/coursedex-$size.png"
    [ "$size" = 256 ] && [ ! -f "$png" ] && png="$root/resources/icons/coursedex.png"
    if [ -f "$png" ]; then
        mkdir -p "$pkg/usr/share/icons/hicolor/${size}x${size}/apps"
        install -m 644 "$png" "$pkg/usr/share/icons/hicolor/${size}x${size}/apps/coursedex.png"
    fi
done
{
    echo "Coursedex $version: MIT licence."
    echo
    echo "Bundled models (name, role, licence, source):"
    cat "$dist/_internal/models/MODELS.txt"
    echo
    echo "Bundled Python packages and Qt keep their own licences, listed in"
    echo "/opt/coursedex/_internal/*.dist-info."
} >"$pkg/usr/share/doc/coursedex/copyright"

# Depends: every library a bundled ELF file loads from the system, as packages.
declare -A packages=()
while IFS= read -r lib; do
    owner="$(dpkg -S "$lib" 2>/dev/null | head -n1 | cut -d: -f1)" || true
    if [ -z "$owner" ]; then  # /lib is a link to /usr/lib on merged-/usr systems
        owner="$(dpkg -S "$(readlink -f "$lib")" 2>/dev/null | head -n1 | cut -d: -f1)" || true
    fi
    [ -n "$owner" ] && packages["$owner"]=1
done < <(
    find "$dist" -type f \( -name '*.so*' -o -perm -u+x \) -print0 |
        xargs -0 file -N --mime-type | sed -n 's/: *application\/x-\(sharedlib\|executable\|pie-executable\)$//p' |
        while IFS= read -r elf; do
            LD_LIBRARY_PATH="$dist/_internal" ldd "$elf" 2>/dev/null | awk '/=> \// {print $3}'
        done | grep -v "^$dist/" | sort -u
)
# The player: libVLC and its plugins (whatever the build machine has of them); fonts make
# text readable.
vlc="libvlc5, vlc-plugin-base, vlc-plugin-video-output"
depends="$(printf '%s\n' "${!packages[@]}" | grep -v -e '^libvlc' -e '^vlc' | sort | paste -sd, | sed 's/,/, /g'), $vlc"

installed_kb="$(du -sk --apparent-size "$pkg" | cut -f1)"
cat >"$pkg/DEBIAN/control" <<EOF
Package: coursedex
Version: $version
Section: education
Priority: optional
Architecture: $arch
Maintainer: Coursedex developers <coursedex@localhost>
Installed-Size: $installed_kb
Depends: $depends
Recommends: fonts-dejavu-core
Homepage: https://coursedex.invalid
Description: search your own course material offline
 Coursedex transcribes lecture videos, reads slide decks, code archives and notes,
 and indexes them on the CPU. Type a question: it plays the video from the word
 where the answer is spoken, opens the slide page, or shows the code at the line.
 Nothing leaves the machine; the default models are included.
EOF
mkdir -p "$out"
deb="$out/coursedex_${version}_${arch}.deb"
# xz -6: about a third smaller than gzip for the models and Qt libraries. Measured on the
# 580 MB bundle (issue 26): xz -6 247.8 MB, xz -9 244.8 MB (-1.2% for 1.6 times the CPU time
# of -6), xz -9 -Sextreme 244.7 MB (2.1 times), zstd -19 258.3 MB. zstd, which every dpkg that
# can run this bundle reads (Debian 12, Ubuntu 22.04 and later), is larger; -9 is not worth
# its time.
dpkg-deb --root-owner-group -Zxz -z6 --build "$pkg" "$deb" >/dev/null
echo "$deb"
