package paths

import "path/filepath"

func defaultRuntimeDir() (string, error) { return stateDir() }

func defaultDataDir(home string) string { return filepath.Join(home, ".local", "share", "limen") }
