<#
.SYNOPSIS
Builds Coursedex for Windows: the PyInstaller one-folder app in dist\coursedex\, checked with
its own --self-test, and the per-user installer dist\Coursedex-<version>-windows-x64-setup.exe.

.DESCRIPTION
The same steps as installer/build.sh (Linux) and installer/macos/build_dmg.sh, from the same
spec (installer/coursedex.spec) and the same model list (installer/models.toml, read by
installer/prepare_models.py):

  1. uv sync --locked --group build, into build\venv; installer/opencv/build_wheel.py's
     minimal OpenCV (built once, then cached in build\wheels) in place of the PyPI wheel
  2. installer/prepare_models.py --profile <dev|release> --out build/models
  3. resources/icons/render_icons.py build/icons   (coursedex.ico for the exe and installer)
  4. pyinstaller installer/coursedex.spec --noconfirm
  5. dist\coursedex\coursedex-cli.exe --self-test (the console twin of the windowed
     coursedex.exe), offscreen, with every proxy pointed at a closed port so that a download
     attempt fails instead of passing silently
  6. iscc /DAppVersion=<version> installer\windows\coursedex.iss

No libVLC goes in: the player is Qt Multimedia, whose FFmpeg backend comes with the PySide6
wheels, and python-vlc plays only with a VLC the user installed (app/player/libvlc.py). So
nothing is downloaded here but the Python packages (checked against uv.lock's sha256) and the
release models (checked by the app's model manager, see installer/models.toml): no hash is
left to pin by hand before a release.

Needs: uv on PATH, the MSVC build tools (hnswlib has no wheels and compiles), Inno Setup 6.3+
(choco install innosetup) and network access to PyPI and the models' hosts.

NOT RUN on this project's machines (Linux only, no network beyond package registries): this
script has been written against the documented behaviour of each tool and runs for the first
time in .github/workflows/release.yml on windows-2022.

.PARAMETER ModelProfile
dev: the models from the PyPI packages of the `models` dependency group (this project's
machines); release: the user defaults, downloaded by the app's model manager (CI).
Not called -Profile: $PROFILE is a PowerShell automatic variable.

.EXAMPLE
powershell -ExecutionPolicy Bypass -File installer\windows\build.ps1 -ModelProfile release
#>
[CmdletBinding()]
param(
    [ValidateSet('dev', 'release')]
    [string]$ModelProfile = 'dev'
)

$ErrorActionPreference = 'Stop'
Set-StrictMode -Version Latest

$Root = (Resolve-Path (Join-Path $PSScriptRoot '..\..')).Path
Set-Location $Root

function Write-Step([string]$Message) {
    Write-Host "`n==> $Message"
}

# Windows PowerShell does not stop on a failing native command: check each exit code.
function Invoke-Native {
    param([Parameter(Mandatory)] [string]$Exe, [string[]]$Arguments = @())
    & $Exe @Arguments
    if ($LASTEXITCODE -ne 0) {
        throw "$Exe $($Arguments -join ' ') failed with exit code $LASTEXITCODE"
    }
}

function Get-FolderSizeMB([string]$Path) {
    $bytes = (Get-ChildItem -LiteralPath $Path -Recurse -File | Measure-Object -Sum Length).Sum
    return [math]::Round($bytes / 1MB, 1)
}

function Find-Iscc {
    $command = Get-Command iscc -ErrorAction SilentlyContinue
    if ($command) { return $command.Source }
    foreach ($base in ${env:ProgramFiles(x86)}, $env:ProgramFiles, "$env:LOCALAPPDATA\Programs") {
        if (-not $base) { continue }
        $candidate = Join-Path $base 'Inno Setup 6\ISCC.exe'
        if (Test-Path $candidate) { return $candidate }
    }
    throw 'Inno Setup 6 (ISCC.exe) not found: choco install innosetup, or https://jrsoftware.org/isdl.php'
}

if (-not (Get-Command uv -ErrorAction SilentlyContinue)) {
    throw 'uv is not on PATH: python -m pip install uv (https://docs.astral.sh/uv/)'
}
# hnswlib compiles with -march=native otherwise (pyproject says the same; this covers a build
# that bypasses it), and such a build crashes on older CPUs.
$env:HNSWLIB_NO_NATIVE = '1'

# The frozen app's environment is build\venv, not .venv: it takes the minimal OpenCV below,
# while tests and development keep the PyPI wheel.
$env:UV_PROJECT_ENVIRONMENT = Join-Path $Root 'build\venv'
Write-Step 'uv sync --locked --group build (in build\venv)'
Invoke-Native uv @('sync', '--locked', '--group', 'build')

Write-Step 'OpenCV with only the modules the app calls (installer/opencv/build_wheel.py)'
# Built once from the locked release's sdist (the MSVC build tools, as for hnswlib), then
# taken from build\wheels (cached by CI).
$CvWheel = (& uv run --no-sync python installer/opencv/build_wheel.py --cache (Join-Path $Root 'build\wheels'))
if ($LASTEXITCODE -ne 0 -or -not $CvWheel) { throw 'installer/opencv/build_wheel.py failed' }
$CvWheel = ($CvWheel | Select-Object -Last 1).Trim()
Invoke-Native uv @('pip', 'install', '--python', (Join-Path $env:UV_PROJECT_ENVIRONMENT 'Scripts\python.exe'),
    '--no-deps', '--reinstall', $CvWheel)
Invoke-Native uv @('run', '--no-sync', 'python', 'installer/opencv/build_wheel.py', '--check')

$Version = (& uv run --no-sync python -c 'import engine; print(engine.__version__)').Trim()
if ($LASTEXITCODE -ne 0 -or -not $Version) { throw 'could not read engine.__version__' }
Write-Host "Coursedex $Version, models: $ModelProfile"

Write-Step "models ($ModelProfile) -> build\models (installer/models.toml)"
Invoke-Native uv @('run', '--no-sync', 'python', 'installer/prepare_models.py',
    '--profile', $ModelProfile, '--out', 'build/models')

Write-Step 'icons -> build\icons'
Invoke-Native uv @('run', '--no-sync', 'python', 'resources/icons/render_icons.py', 'build/icons')

Write-Step 'pyinstaller installer/coursedex.spec'
Invoke-Native uv @('run', '--no-sync', 'pyinstaller', 'installer/coursedex.spec', '--noconfirm')
$Exe = Join-Path $Root 'dist\coursedex\coursedex.exe'
$Cli = Join-Path $Root 'dist\coursedex\coursedex-cli.exe'
foreach ($program in $Exe, $Cli) {
    if (-not (Test-Path $program)) { throw "the spec did not produce $program" }
}

Write-Step 'self-test of the frozen app (coursedex-cli.exe, offscreen, downloads blocked)'
# coursedex.exe is windowed: no stdout, and `&` does not wait for it. Its console twin
# coursedex-cli.exe (same bundle) prints and returns the exit status.
$savedEnv = @{}
$testEnv = @{ HTTP_PROXY = 'http://127.0.0.1:9'; HTTPS_PROXY = 'http://127.0.0.1:9';
    ALL_PROXY = 'http://127.0.0.1:9'; NO_PROXY = ''; QT_QPA_PLATFORM = 'offscreen' }
foreach ($name in $testEnv.Keys) {
    $savedEnv[$name] = [Environment]::GetEnvironmentVariable($name)
    [Environment]::SetEnvironmentVariable($name, $testEnv[$name])
}
try {
    Invoke-Native $Cli @('--self-test')
}
finally {
    foreach ($name in $savedEnv.Keys) {
        [Environment]::SetEnvironmentVariable($name, $savedEnv[$name])
    }
}

Write-Step 'Inno Setup'
$Iscc = Find-Iscc
Invoke-Native $Iscc @("/DAppVersion=$Version", 'installer\windows\coursedex.iss')
$Setup = Join-Path $Root "dist\Coursedex-$Version-windows-x64-setup.exe"
if (-not (Test-Path $Setup)) { throw "iscc did not produce $Setup" }

Write-Step 'sizes'
Write-Host ("bundle    dist\coursedex\   {0} MB" -f (Get-FolderSizeMB (Join-Path $Root 'dist\coursedex')))
Write-Host ("installer {0}   {1} MB" -f (Split-Path -Leaf $Setup), [math]::Round((Get-Item $Setup).Length / 1MB, 1))
