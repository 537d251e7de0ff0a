"""The installer recipes of the three OSes, checked here although only Linux's can run here.

The release workflow is linted with actionlint (and shown to fail on a broken copy); every
OS recipe freezes with the one spec and the one model list; the Windows installer is per user
and keeps the user's library unless asked; the shell recipes parse and are executable; the
icon files the packages use are what they claim. No Qt is imported (engine tests never do).
"""

from __future__ import annotations

import os
import plistlib
import re
import struct
import subprocess
import sys
from pathlib import Path, PureWindowsPath
from types import ModuleType

import pytest

from tests.scripts import load_script

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github" / "workflows" / "release.yml"
SPEC = "installer/coursedex.spec"
# The recipe that freezes the app on each OS.
FREEZE_RECIPES = {
    "linux": ROOT / "installer" / "build.sh",
    "windows": ROOT / "installer" / "windows" / "build.ps1",
    "macos": ROOT / "installer" / "macos" / "build_dmg.sh",
}
ISS = ROOT / "installer" / "windows" / "coursedex.iss"


def actionlint_binary() -> Path:
    """actionlint from the dev dependency group, installed beside this Python."""
    name = "actionlint.exe" if sys.platform == "win32" else "actionlint"
    found = Path(sys.executable).parent / name
    if not found.is_file():
        pytest.fail(f"{found} is missing: the dev dependency group provides it (uv sync)")
    return found


def actionlint(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(actionlint_binary()), "-no-color", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def code_lines(path: Path) -> list[str]:
    """The lines of a shell or PowerShell script that are not comments."""
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"<#.*?#>", "", text, flags=re.DOTALL)  # PowerShell block comments
    return [line for line in text.splitlines() if not line.lstrip().startswith("#")]


def iss_sections(path: Path) -> dict[str, list[str]]:
    """An Inno Setup script's sections: name -> its lines, without blanks or ; comments."""
    sections: dict[str, list[str]] = {}
    current = ""
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith(";"):
            continue
        header = re.fullmatch(r"\[(\w+)\]", line)
        if header:
            current = header.group(1)
            sections.setdefault(current, [])
        elif current:
            sections[current].append(line)
    return sections


def load_render_icons() -> ModuleType:
    """resources/icons/render_icons.py as a module (it imports Qt only inside functions)."""
    return load_script(ROOT / "resources" / "icons" / "render_icons.py")


# --- the workflow ------------------------------------------------------------------------


def test_release_workflow_has_no_actionlint_findings() -> None:
    result = actionlint(WORKFLOW)
    assert result.returncode == 0 and not result.stdout.strip(), result.stdout + result.stderr


def test_actionlint_fails_on_a_broken_copy_of_the_workflow(tmp_path: Path) -> None:
    text = WORKFLOW.read_text(encoding="utf-8")
    broken = text.replace("needs: [build,", "needs: [biuld,").replace(
        "name: ${{ matrix.artifact }}", "name: ${{ matrix.artefact }}"
    )
    assert broken.count("biuld") == 1 and broken.count("matrix.artefact") == 1
    copy = tmp_path / "release.yml"
    copy.write_text(broken, encoding="utf-8")
    result = actionlint(copy)
    assert result.returncode != 0
    assert "biuld" in result.stdout
    assert "artefact" in result.stdout


def test_workflow_runs_every_recipe_with_the_release_models() -> None:
    text = WORKFLOW.read_text(encoding="utf-8")
    for command in (
        "installer/build.sh --profile release",
        "installer/linux/appimage.sh",
        "./installer/windows/build.ps1 -ModelProfile release",
        "installer/macos/build_dmg.sh --profile release",
    ):
        assert f"run: {command}" in text, command
    for runner in ("ubuntu-22.04", "windows-2022", "macos-14"):
        assert f"os: {runner}" in text
    # Signing secrets reach the macOS steps only.
    secret_lines = [n for n, line in enumerate(text.splitlines()) if "secrets." in line]
    macos_start = text.splitlines().index("      # --- macOS " + "-" * 72)
    every_os_start = text.splitlines().index("      # --- every OS " + "-" * 69)
    assert secret_lines and all(macos_start < n < every_os_start for n in secret_lines)


def workflow_steps(job: str) -> list[str]:
    """The text of each step of ``job`` in the release workflow (its lines from one
    ``      - `` to the next), in order."""
    lines = WORKFLOW.read_text(encoding="utf-8").splitlines()
    start = lines.index(f"  {job}:")
    end = next((i for i in range(start + 1, len(lines)) if re.match(r"  \S", lines[i])), None)
    steps: list[list[str]] = []
    inside = False
    for line in lines[start:end]:
        if line == "    steps:":
            inside = True
        elif inside and line.startswith("      - "):
            steps.append([line])
        elif inside and steps:
            steps[-1].append(line)
    return ["\n".join(step) for step in steps]


OS_STEP = {os_name: f"if: runner.os == '{os_name}'" for os_name in ("Linux", "Windows", "macOS")}


@pytest.mark.parametrize("os_name", sorted(OS_STEP))
def test_each_os_job_self_tests_what_it_built_headless_and_prints_its_sizes(
    os_name: str,
) -> None:
    steps = workflow_steps("build")
    recipe = next(
        i for i, step in enumerate(steps) if OS_STEP[os_name] in step and "installer/" in step
    )
    after = [step for step in steps[recipe + 1 :] if OS_STEP[os_name] in step]
    tests = [step for step in after if re.search(r"\s--self-test\b", step)]
    assert tests, f"no {os_name} step runs the built app's --self-test"
    headless = {
        "Linux": "export DISPLAY=:99",
        "Windows": "QT_QPA_PLATFORM: offscreen",
        "macOS": "QT_QPA_PLATFORM: offscreen",
    }
    assert all(headless[os_name] in step for step in tests)
    if os_name == "Windows":  # the windowed coursedex.exe has no stdout and is not waited for
        assert all("coursedex-cli.exe') --self-test" in step for step in tests)
    sizes = [step for step in after if "installed:" in step and "download:" in step]
    assert sizes and all("GITHUB_STEP_SUMMARY" in step for step in sizes)
    upload = [step for step in steps if "actions/upload-artifact" in step]
    assert len(upload) == 1 and "if:" not in upload[0]  # every OS uploads
    assert "if-no-files-found: error" in upload[0]


def test_engine_tests_run_on_windows_and_macos_and_gate_the_release() -> None:
    text = WORKFLOW.read_text(encoding="utf-8")
    job = text[text.index("  engine-tests:") : text.index("  release:")]
    for runner in ("windows-2022", "macos-14"):
        assert f"- os: {runner}" in job
    listed = re.findall(r"tests/engine/(?:\w+/)?test_\w+\.py", job)
    assert len(set(listed)) >= 7
    for name in listed:
        assert (ROOT / name).is_file(), name
    assert "uv run --no-sync pytest" in job and "uv sync --locked" in job
    assert "needs: [build, engine-tests]" in text


def test_windows_ships_a_console_program_beside_the_window() -> None:
    """coursedex.exe is windowed (no console pops up); `coursedex-cli.exe mcp`, the CLI and
    the self-test need stdin/stdout: a second EXE of the same analysis in the same folder."""
    spec = (ROOT / SPEC).read_text(encoding="utf-8")
    twin = spec[spec.index('if sys.platform == "win32":\n    # A windowed') :]
    assert 'name="coursedex-cli"' in twin and "console=True" in twin
    assert "pyz,\n            a.scripts," in twin and "exclude_binaries=True" in twin
    assert "coll = COLLECT(  # noqa: F821\n    *programs," in spec
    code = "\n".join(code_lines(FREEZE_RECIPES["windows"]))
    assert "Invoke-Native $Cli @('--self-test')" in code
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "coursedex-cli.exe" in readme[readme.index("### MCP server") :]


def test_readme_install_names_the_files_the_jobs_build() -> None:
    """The Install table names each file as the recipe writes it, on the workflow's runners
    (x86-64 Linux and Windows, Apple silicon macos-14)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    install = readme[readme.index("## Install") : readme.index("## From source")]
    made = {
        "installer/windows/coursedex.iss": (
            "OutputBaseFilename=Coursedex-{#AppVersion}-windows-x64-setup",
            "Coursedex-<version>-windows-x64-setup.exe",
        ),
        "installer/macos/build_dmg.sh": (
            'dmg="$root/dist/Coursedex-$version-macos-$arch.dmg"',
            "Coursedex-<version>-macos-arm64.dmg",
        ),
        "installer/linux/make_deb.sh": (
            'deb="$out/coursedex_${version}_${arch}.deb"',
            "coursedex_<version>_amd64.deb",
        ),
        "installer/linux/appimage.sh": (
            'out="$root/dist/Coursedex-$version-$arch.AppImage"',
            "Coursedex-<version>-x86_64.AppImage",
        ),
    }
    for recipe, (writes, name) in made.items():
        assert writes in (ROOT / recipe).read_text(encoding="utf-8"), recipe
        assert f"`{name}`" in install, name
    assert "macos-14" in WORKFLOW.read_text(encoding="utf-8")  # arm64 runner


def test_no_release_step_waits_for_a_hash_to_be_pinned_by_hand() -> None:
    """A tag build must run to the end on every OS: no placeholder hash (PIN-ME) stops it,
    and no recipe downloads or bundles libVLC (the player is Qt Multimedia; python-vlc plays
    with the user's own VLC)."""
    recipes = [p for p in sorted((ROOT / "installer").rglob("*")) if p.is_file()]
    for path in [*recipes, WORKFLOW]:
        text = path.read_text(encoding="utf-8", errors="replace")
        assert "PIN-ME" not in text, path
    for path in [*FREEZE_RECIPES.values(), WORKFLOW]:
        code = "\n".join(code_lines(path)).lower()
        assert "videolan" not in code and "install --cask vlc" not in code, path
        assert "coursedex_vlc_dir" not in code, path
    assert "COURSEDEX_VLC_DIR" not in (ROOT / SPEC).read_text(encoding="utf-8")


# --- one spec, one model list ------------------------------------------------------------


def test_there_is_one_spec() -> None:
    specs = sorted(p.relative_to(ROOT).as_posix() for p in ROOT.glob("installer/**/*.spec"))
    assert specs == [SPEC]


@pytest.mark.parametrize("os_name", sorted(FREEZE_RECIPES))
def test_each_os_freezes_with_the_one_spec_and_model_list(os_name: str) -> None:
    code = "\n".join(code_lines(FREEZE_RECIPES[os_name]))
    # Arguments may be shell words or PowerShell array items ('a', 'b') over several lines.
    sep = r"['\"]?,?\s+['\"]?"
    assert re.search("pyinstaller" + sep + re.escape(SPEC), code), "no pyinstaller <the spec>"
    assert set(re.findall(r"[\w/\\.-]+\.spec\b", code)) == {SPEC}
    # The spec reads build/models; prepare_models.py fills it from installer/models.toml.
    assert re.search(r"installer/prepare_models\.py" + sep + "--profile", code)
    assert re.search("--out" + sep + "build/models", code)
    assert set(re.findall(r"[\w/\\.-]*models\.(?:toml|json|ya?ml)", code)) <= {
        "installer/models.toml"
    }


@pytest.mark.parametrize("os_name", sorted(FREEZE_RECIPES))
def test_each_os_freezes_with_the_minimal_opencv_in_its_own_environment(os_name: str) -> None:
    """build/venv, not the developer's .venv, gets installer/opencv/build_wheel.py's wheel,
    checked with --check, before PyInstaller runs."""
    code = "\n".join(code_lines(FREEZE_RECIPES[os_name]))
    sep = r"['\"]?,?\s+['\"]?"
    environment = re.search(r"UV_PROJECT_ENVIRONMENT\W+.*build.venv", code)
    built = re.search("build_wheel\\.py" + sep + "--cache", code)
    installed = re.search(r"install\W+--python[\s\S]{0,200}?--no-deps\W+--reinstall", code)
    checked = re.search("build_wheel\\.py" + sep + "--check", code)
    frozen = re.search("pyinstaller" + sep + re.escape(SPEC), code)
    assert environment and built and installed and checked and frozen
    assert environment.start() < built.start() < installed.start() < checked.start()
    assert checked.start() < frozen.start()


def test_the_workflow_caches_the_opencv_wheel_by_the_recipes_key() -> None:
    steps = workflow_steps("build")
    key = next(i for i, step in enumerate(steps) if "build_wheel.py --key" in step)
    cache = steps[key + 1]
    assert "uses: actions/cache@" in cache and "path: build/wheels" in cache
    assert "steps.opencv.outputs.key" in cache and "id: opencv" in steps[key]
    recipe = next(i for i, step in enumerate(steps) if "installer/build.sh" in step)
    assert key < recipe and not any("if:" in line for line in steps[key : key + 2])


def test_linux_freezes_with_the_read_only_pyav_in_its_own_environment() -> None:
    """installer/pyav/build_wheel.py's wheel goes into build/venv, checked, before PyInstaller
    runs (Windows and macOS keep PyPI's PyAV)."""
    code = "\n".join(code_lines(FREEZE_RECIPES["linux"]))
    sep = r"['\"]?,?\s+['\"]?"
    built = re.search(
        r"(\w+)=\W+uv run --no-sync python installer/pyav/build_wheel\.py" + sep + "--cache", code
    )
    assert built, "build.sh does not build installer/pyav/build_wheel.py's wheel"
    installed = re.search(r"--no-deps\W+--reinstall\W+\$" + built.group(1) + r"\b", code)
    checked = re.search(r"installer/pyav/build_wheel\.py" + sep + "--check", code)
    frozen = re.search("pyinstaller" + sep + re.escape(SPEC), code)
    assert installed and checked and frozen
    assert built.start() < installed.start() < checked.start() < frozen.start()


def test_the_linux_job_caches_the_pyav_wheel_by_the_recipes_key() -> None:
    steps = workflow_steps("build")
    key = next(i for i, step in enumerate(steps) if "pyav/build_wheel.py --key" in step)
    cache = steps[key + 1]
    assert "id: pyav" in steps[key] and "uses: actions/cache@" in cache
    assert "path: build/wheels/${{ steps.pyav.outputs.key }}" in cache
    assert "-${{ steps.pyav.outputs.key }}" in cache.split("key:")[-1]
    assert all("if: runner.os == 'Linux'" in step for step in steps[key : key + 2])
    assert key < next(i for i, step in enumerate(steps) if "installer/build.sh" in step)


def test_prepare_models_reads_the_one_model_list() -> None:
    assert (ROOT / "installer" / "models.toml").is_file()
    assert "models.toml" in (ROOT / "installer" / "prepare_models.py").read_text(encoding="utf-8")


# --- Windows installer -------------------------------------------------------------------


def test_windows_installer_is_per_user() -> None:
    sections = iss_sections(ISS)
    setup = sections["Setup"]
    assert "PrivilegesRequired=lowest" in setup
    assert "DefaultDirName={localappdata}\\Programs\\{#AppName}" in setup
    assert not any(line.startswith("PrivilegesRequiredOverridesAllowed") for line in setup)
    registry = sections["Registry"]
    assert registry and all(line.startswith("Root: HKCU;") for line in registry)
    assert any(
        'Subkey: "Software\\Classes\\coursedex\\shell\\open\\command"' in line
        and '""{app}\\{#AppExe}"" open ""%1""' in line
        for line in registry
    )
    assert any('ValueName: "URL Protocol"' in line for line in registry)
    source = [line for line in sections["Files"] if line.startswith("Source:")]
    assert source == [
        'Source: "{#DistDir}\\*"; DestDir: "{app}"; '
        "Flags: ignoreversion recursesubdirs createallsubdirs"
    ]


def test_windows_uninstaller_keeps_the_library_unless_the_user_says_yes() -> None:
    code = "\n".join(iss_sections(ISS)["Code"])
    assert "procedure CurUninstallStepChanged(CurUninstallStep: TUninstallStep);" in code
    assert "Also delete my library?" in code
    # Default button No, and No when the uninstall is silent; only Yes deletes.
    assert "MB_YESNO or MB_DEFBUTTON2, IDNO) = IDYES" in code
    deletions = [m.start() for m in re.finditer(r"DelTree\(", code)]
    assert len(deletions) == 1
    guard = code.rfind("and DeleteLibrary then", 0, deletions[0])
    assert guard != -1 and "end" not in code[guard : deletions[0]].split("begin", 1)[1]
    assert "Result := ExpandConstant('{localappdata}\\coursedex');" in code
    # Nothing else removes user files.
    assert all("{localappdata}" not in line for line in iss_sections(ISS)["UninstallDelete"])


def test_uninstaller_folder_is_where_the_app_keeps_its_data_on_windows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """engine and app keep library, models, settings and cache under platformdirs'
    "coursedex" folders without an author; on Windows all of them must fall inside
    %LOCALAPPDATA%\\coursedex, the one folder the uninstaller offers to delete."""
    from platformdirs import windows

    local = "C:\\Users\\ann\\AppData\\Local"
    folders = {"CSIDL_LOCAL_APPDATA": local, "CSIDL_APPDATA": "C:\\Users\\ann\\AppData\\Roaming"}
    monkeypatch.setattr(windows, "get_win_folder", folders.__getitem__)
    dirs = windows.Windows("coursedex", appauthor=False)
    expected = PureWindowsPath(local, "coursedex")
    assert PureWindowsPath(dirs.user_data_dir) == expected
    assert PureWindowsPath(dirs.user_config_dir) == expected
    assert expected in PureWindowsPath(dirs.user_cache_dir).parents


# --- shell recipes, macOS entitlements, icons ------------------------------------------


SHELL_RECIPES = sorted(ROOT.glob("installer/**/*.sh"))


@pytest.mark.parametrize("script", SHELL_RECIPES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_shell_recipe_parses_and_is_executable(script: Path) -> None:
    result = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    # The workflow and the README call them by path.
    assert os.access(script, os.X_OK), f"{script} is not executable (git update-index --chmod=+x)"


def test_bash_n_catches_a_syntax_error(tmp_path: Path) -> None:
    script = tmp_path / "broken.sh"
    script.write_text(
        (ROOT / "installer" / "linux" / "appimage.sh").read_text(encoding="utf-8") + "\nif true\n",
        encoding="utf-8",
    )
    assert subprocess.run(["bash", "-n", str(script)], capture_output=True).returncode != 0


def test_appimage_recipe_stops_with_exit_2_and_says_where_to_get_appimagetool() -> None:
    lines = code_lines(ROOT / "installer" / "linux" / "appimage.sh")
    text = "\n".join(lines)
    assert "command -v appimagetool" in text
    assert "https://github.com/AppImage/appimagetool/releases" in text
    assert "exit 2" in text
    # It packs the bundle build.sh froze; it never downloads anything itself.
    assert not re.search(r"\b(curl|wget)\b", text)


def test_macos_entitlements() -> None:
    with (ROOT / "installer" / "macos" / "entitlements.plist").open("rb") as f:
        entitlements = plistlib.load(f)
    assert entitlements == {
        "com.apple.security.cs.disable-library-validation": True,
        "com.apple.security.cs.allow-unsigned-executable-memory": True,
    }


def test_macos_recipe_signs_only_with_every_secret() -> None:
    text = "\n".join(code_lines(FREEZE_RECIPES["macos"]))
    assert 'sign_vars="MACOS_SIGN_IDENTITY APPLE_ID APPLE_TEAM_ID APPLE_APP_PASSWORD"' in text
    assert "--options runtime" in text and "codesign --verify --strict --deep" in text
    assert "notarytool submit" in text and "stapler staple" in text
    assert "the dmg is UNSIGNED" in text
    assert "ln -s /Applications" in text and "hdiutil create" in text


def test_app_icon_files() -> None:
    png = (ROOT / "resources" / "icons" / "coursedex.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    assert (width, height) == (256, 256)
    svg = (ROOT / "resources" / "icons" / "coursedex.svg").read_text(encoding="utf-8")
    assert 'viewBox="0 0 256 256"' in svg


def test_ico_and_icns_writers_hold_every_size() -> None:
    render_icons = load_render_icons()
    fake = {size: b"\x89PNG" + bytes([size % 251]) * size for size in (16, 32, 256)}
    ico = render_icons.ico_bytes(fake)
    reserved, kind, count = struct.unpack("<HHH", ico[:6])
    assert (reserved, kind, count) == (0, 1, 3)
    for index, size in enumerate(sorted(fake)):
        width, _, _, _, _, _, length, offset = struct.unpack(
            "<BBBBHHII", ico[6 + 16 * index : 22 + 16 * index]
        )
        assert width == (0 if size == 256 else size)
        assert ico[offset : offset + length] == fake[size]

    sizes = {size for _, size in render_icons.ICNS_TYPES}
    pngs = {size: b"\x89PNG" + bytes([size % 251]) * 3 for size in sizes}
    icns = render_icons.icns_bytes(pngs)
    assert icns[:4] == b"icns" and struct.unpack(">I", icns[4:8])[0] == len(icns)
    position, seen = 8, {}
    while position < len(icns):
        kind = icns[position : position + 4]
        length = struct.unpack(">I", icns[position + 4 : position + 8])[0]
        seen[kind] = icns[position + 8 : position + length]
        position += length
    assert seen == {kind: pngs[size] for kind, size in render_icons.ICNS_TYPES}
