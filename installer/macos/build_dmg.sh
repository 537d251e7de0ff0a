#!/usr/bin/env bash
# Builds Coursedex for macOS: dist/Coursedex.app (PyInstaller, from the one spec all three OSes
# share: installer/coursedex.spec, with the models listed in installer/models.toml and put in
# place by installer/prepare_models.py), checks it with its own --self-test, signs and
# notarises it when the secrets exist, and packs it into dist/Coursedex-<version>-macos-<arch>.dmg
# with an /Applications link to drag it onto.
#
#   installer/macos/build_dmg.sh [--profile dev|release]
#
# --profile dev (default): the models from the PyPI packages of the `models` dependency group;
# release: the user defaults, downloaded by the app's model manager (what CI builds).
#
# Needs: uv and the Xcode command line tools (hnswlib compiles; codesign, notarytool, stapler).
# No libVLC goes in: the player is Qt Multimedia (its FFmpeg comes with the PySide6 wheels), and
# python-vlc plays only with a VLC.app the user installed (app/player/libvlc.py).
#
# Signing and notarisation run only when all of these are set (CI passes them from secrets):
#   MACOS_SIGN_IDENTITY  "Developer ID Application: Name (TEAMID)", in the keychain
#   APPLE_ID, APPLE_TEAM_ID, APPLE_APP_PASSWORD (an app-specific password) for notarytool
# With none set the .dmg is built unsigned and the script says so; with only some set it
# stops, so a release cannot come out unsigned by a missing secret.
#
# NOT RUN on this project's machines (Linux, no Mac): written to the tools' documented
# behaviour; it runs for the first time in .github/workflows/release.yml on macos-14. Only
# `bash -n` checks it here (tests/installer/test_installer_recipes.py). Kept to bash 3.2, the
# /bin/bash macOS ships.
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$(pwd)"

step() { printf '\n==> %s\n' "$*"; }
die() { printf 'build_dmg: %s\n' "$*" >&2; exit 1; }

profile=dev
while [ $# -gt 0 ]; do
    case "$1" in
        --profile) profile="${2:?--profile needs dev or release}"; shift 2 ;;
        --profile=*) profile="${1#*=}"; shift ;;
        -h | --help) sed -n '2,12p' "$0"; exit 0 ;;
        *) die "unknown argument: $1 (usage: build_dmg.sh [--profile dev|release])" ;;
    esac
done
case "$profile" in dev | release) ;; *) die "--profile must be dev or release, not '$profile'" ;; esac

[ "$(uname -s)" = Darwin ] || die "builds the macOS app: run it on a Mac (Linux: installer/build.sh)"
command -v uv >/dev/null || die "uv is not on PATH: python3 -m pip install uv"

# Sign and notarise with all four secrets, or with none; a partial set is a mistake.
sign_vars="MACOS_SIGN_IDENTITY APPLE_ID APPLE_TEAM_ID APPLE_APP_PASSWORD"
set_count=0
missing=""
for name in $sign_vars; do
    if [ -n "${!name:-}" ]; then set_count=$((set_count + 1)); else missing="$missing $name"; fi
done
if [ "$set_count" -eq 4 ]; then
    signing=yes
elif [ "$set_count" -eq 0 ]; then
    signing=no
else
    die "signing needs all of $sign_vars; missing:$missing"
fi

entitlements="$root/installer/macos/entitlements.plist"
# hnswlib compiles with -march=native otherwise (pyproject says the same; this covers a build
# that bypasses it), and such a build crashes on other CPUs.
export HNSWLIB_NO_NATIVE=1

# The frozen app's environment is build/venv, not .venv: it takes the minimal OpenCV below,
# while tests and development keep the PyPI wheel.
export UV_PROJECT_ENVIRONMENT="$root/build/venv"
step "uv sync --locked --group build (in build/venv)"
uv sync --locked --group build

step "OpenCV with only the modules the app calls (installer/opencv/build_wheel.py)"
# Built once from the locked release's sdist, then taken from build/wheels (cached by CI).
cv_wheel="$(uv run --no-sync python installer/opencv/build_wheel.py --cache "$root/build/wheels")"
uv pip install --python "$UV_PROJECT_ENVIRONMENT/bin/python" --no-deps --reinstall "$cv_wheel"
uv run --no-sync python installer/opencv/build_wheel.py --check
version="$(uv run --no-sync python -c 'import engine; print(engine.__version__)')"
arch="$(uname -m)"
echo "Coursedex $version ($arch), models: $profile, signing: $signing"

step "models ($profile) -> build/models (installer/models.toml)"
uv run --no-sync python installer/prepare_models.py --profile "$profile" --out build/models

step "icons -> build/icons (coursedex.icns for the bundle)"
uv run --no-sync python resources/icons/render_icons.py build/icons

step "pyinstaller installer/coursedex.spec"
rm -rf dist/Coursedex.app
uv run --no-sync pyinstaller installer/coursedex.spec --noconfirm
app="$root/dist/Coursedex.app"
[ -d "$app" ] || die "the spec did not produce $app"
exe="$app/Contents/MacOS/$(/usr/libexec/PlistBuddy -c 'Print :CFBundleExecutable' "$app/Contents/Info.plist")"

codesign_file() {
    codesign --force --timestamp --options runtime --sign "$MACOS_SIGN_IDENTITY" "$@"
}

# notarise FILE: submit to Apple's notary service, wait, fail with its log unless Accepted.
# (notarytool exits 0 for a finished but rejected submission, so the status is read.)
notarise() {
    local file="$1" result id status
    result="$(xcrun notarytool submit "$file" --apple-id "$APPLE_ID" --team-id "$APPLE_TEAM_ID" \
        --password "$APPLE_APP_PASSWORD" --wait --output-format json)"
    id="$(printf '%s' "$result" | plutil -extract id raw -o - -)"
    status="$(printf '%s' "$result" | plutil -extract status raw -o - -)"
    echo "notarisation of $(basename "$file"): $status ($id)"
    if [ "$status" != Accepted ]; then
        xcrun notarytool log "$id" --apple-id "$APPLE_ID" --team-id "$APPLE_TEAM_ID" \
            --password "$APPLE_APP_PASSWORD" >&2 || true
        die "notarisation of $file: $status"
    fi
}

if [ "$signing" = yes ]; then
    step "codesign (hardened runtime) with $MACOS_SIGN_IDENTITY"
    # Inside out, never --deep: every Mach-O file (Python extensions, Qt and its plugins, the
    # launcher), then each framework bundle, then the app with its entitlements.
    # Signing before the self-test means the test runs under the hardened runtime users get.
    find "$app/Contents" -type f -print0 | while IFS= read -r -d '' file; do
        if file -b "$file" | grep -q 'Mach-O'; then codesign_file "$file"; fi
    done
    find "$app/Contents" -depth -type d -name '*.framework' -print0 |
        while IFS= read -r -d '' framework; do codesign_file "$framework"; done
    codesign_file --entitlements "$entitlements" "$app"
    codesign --verify --strict --deep --verbose=2 "$app"
fi

step "self-test of the frozen app (downloads blocked)"
# Proxies at a closed port: a download attempt fails the test instead of passing silently.
HTTP_PROXY=http://127.0.0.1:9 HTTPS_PROXY=http://127.0.0.1:9 ALL_PROXY=http://127.0.0.1:9 \
    NO_PROXY='' "$exe" --self-test

if [ "$signing" = yes ]; then
    step "notarise and staple the app"
    # Stapled, the app opens offline on first launch too (Gatekeeper finds the ticket in it).
    ditto -c -k --keepParent "$app" build/Coursedex-notarise.zip
    notarise build/Coursedex-notarise.zip
    xcrun stapler staple "$app"
    rm -f build/Coursedex-notarise.zip
fi

step "dmg"
dmg="$root/dist/Coursedex-$version-macos-$arch.dmg"
stage="$root/build/dmg"
rm -rf "$stage" "$dmg"
mkdir -p "$stage"
ditto "$app" "$stage/Coursedex.app"
ln -s /Applications "$stage/Applications"
hdiutil create -volname "Coursedex $version" -srcfolder "$stage" -fs HFS+ -format UDZO \
    -imagekey zlib-level=9 -ov "$dmg"
rm -rf "$stage"

if [ "$signing" = yes ]; then
    step "sign, notarise and staple the dmg"
    codesign --force --timestamp --sign "$MACOS_SIGN_IDENTITY" "$dmg"
    notarise "$dmg"
    xcrun stapler staple "$dmg"
    spctl --assess --type open --context context:primary-signature --verbose=2 "$dmg"
else
    echo "build_dmg: the dmg is UNSIGNED (no $sign_vars): macOS will refuse to open the app"
    echo "build_dmg: until the user right-clicks it > Open. Set those variables to sign and notarise."
fi

step "sizes"
echo "app        $(du -sh "$app" | cut -f1)"
echo "dmg        $(du -h "$dmg" | cut -f1)  $dmg"
