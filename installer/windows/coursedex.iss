; Coursedex for Windows: a per-user installer (Inno Setup 6.3 or later) around the PyInstaller
; one-folder build in dist\coursedex\ (installer/coursedex.spec, the same spec as Linux and
; macOS). installer/windows/build.ps1 builds that folder, renders the icons into build\icons\
; and then runs:
;
;   iscc /DAppVersion=0.1.0 installer\windows\coursedex.iss
;
; Per user (no administrator prompt): students often cannot elevate on lab or school
; machines. The app goes to %LOCALAPPDATA%\Programs\Coursedex; the user's library, models and
; settings live apart from it in %LOCALAPPDATA%\coursedex (platformdirs user_data_dir /
; user_config_dir for "coursedex" without an author folder), so an uninstall or an upgrade
; never touches them unless the user says so.
;
; Not compiled here (no Windows, no Inno Setup on this project's machines): the release
; workflow (.github/workflows/release.yml) compiles it on windows-2022.

#if VER < EncodeVer(6, 3, 0)
  #error Inno Setup 6.3 or later is needed (x64compatible architecture identifier)
#endif

#ifndef AppVersion
  #error Pass the version: iscc /DAppVersion=X.Y.Z installer\windows\coursedex.iss
#endif

; Relative paths are relative to this file's folder.
#ifndef DistDir
  #define DistDir "..\..\dist\coursedex"
#endif
#ifndef IconDir
  #define IconDir "..\..\build\icons"
#endif
#ifndef OutputDir
  #define OutputDir "..\..\dist"
#endif

#define AppName "Coursedex"
#define AppExe "coursedex.exe"

[Setup]
; The AppId ties upgrades and the uninstaller to one another: never change it.
AppId={{03F8C7CD-465E-47F5-A77B-8F865F7281C6}
AppName={#AppName}
AppVersion={#AppVersion}
AppVerName={#AppName} {#AppVersion}
AppPublisher=Coursedex
AppComments=Search your own course videos, slides, code and notes offline
PrivilegesRequired=lowest
DefaultDirName={localappdata}\Programs\{#AppName}
DisableProgramGroupPage=yes
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
SetupIconFile={#IconDir}\coursedex.ico
UninstallDisplayIcon={app}\{#AppExe}
UninstallDisplayName={#AppName}
OutputDir={#OutputDir}
OutputBaseFilename=Coursedex-{#AppVersion}-windows-x64-setup
Compression=lzma2/max
SolidCompression=yes
WizardStyle=modern
; A running Coursedex holds its DLLs open: let the Restart Manager close it before files are
; replaced.
CloseApplications=yes
RestartApplications=no

[Languages]
Name: "english"; MessagesFile: "compiler:Default.isl"

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[InstallDelete]
; PyInstaller's support files change from one version to the next; stale DLLs left over from
; an older version could be loaded by the new one. Only the bundle's own folder is cleared.
Type: filesandordirs; Name: "{app}\_internal"

[Files]
Source: "{#DistDir}\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{autoprograms}\{#AppName}"; Filename: "{app}\{#AppExe}"
Name: "{autodesktop}\{#AppName}"; Filename: "{app}\{#AppExe}"; Tasks: desktopicon

[Registry]
; coursedex:// links (e.g. a link to a moment in a lecture) open in the app. HKCU only: a
; per-user install may not write HKLM. The whole key goes with the uninstaller.
Root: HKCU; Subkey: "Software\Classes\coursedex"; ValueType: string; ValueName: ""; ValueData: "URL:Coursedex link"; Flags: uninsdeletekey
Root: HKCU; Subkey: "Software\Classes\coursedex"; ValueType: string; ValueName: "URL Protocol"; ValueData: ""
Root: HKCU; Subkey: "Software\Classes\coursedex\DefaultIcon"; ValueType: string; ValueName: ""; ValueData: """{app}\{#AppExe}"",0"
Root: HKCU; Subkey: "Software\Classes\coursedex\shell\open\command"; ValueType: string; ValueName: ""; ValueData: """{app}\{#AppExe}"" open ""%1"""

[Run]
Filename: "{app}\{#AppExe}"; Description: "{cm:LaunchProgram,{#AppName}}"; Flags: nowait postinstall skipifsilent

[UninstallDelete]
; Files the app may write next to itself at run time (caches). Never
; "{app}" itself: a user may have picked a folder that holds other things.
Type: filesandordirs; Name: "{app}\_internal"

[Code]
var
  DeleteLibrary: Boolean;

{ The user's library, models and settings (platformdirs, appauthor=False). }
function UserDataDir: String;
begin
  Result := ExpandConstant('{localappdata}\coursedex');
end;

{ Keep the library unless the user answers Yes: it holds hours of transcription. A silent
  uninstall (e.g. an upgrade script) takes the default, No. }
procedure CurUninstallStepChanged(CurUninstallStep: TUninstallStep);
begin
  if CurUninstallStep = usUninstall then
  begin
    DeleteLibrary := False;
    if DirExists(UserDataDir) then
      DeleteLibrary := SuppressibleMsgBox(
        'Also delete my library?' + #13#10 + #13#10 +
        'Yes deletes your indexed courses, downloaded models and settings in' + #13#10 +
        UserDataDir + #13#10 + #13#10 +
        'No keeps them: installing Coursedex again finds them as they were. ' +
        'Your original videos, slides and notes are never deleted, and neither is a ' +
        'library folder you chose yourself in Settings.',
        mbConfirmation, MB_YESNO or MB_DEFBUTTON2, IDNO) = IDYES;
  end
  else if (CurUninstallStep = usPostUninstall) and DeleteLibrary then
  begin
    if not DelTree(UserDataDir, True, True, True) then
      SuppressibleMsgBox('Some files in ' + UserDataDir + ' could not be deleted ' +
        '(is Coursedex still running?). You can delete that folder yourself.',
        mbInformation, MB_OK, IDOK);
  end;
end;
