; Included by electron-builder into the NSIS installer script (nsis.include in electron-builder.yml).
; The installer and uninstaller windows declare DPI awareness, so they are sharp on scaled
; displays (NSIS 3 attribute; docs/packaging.md §4). The app's own executable is electron.exe,
; whose manifest Electron ships.
ManifestDPIAware true
