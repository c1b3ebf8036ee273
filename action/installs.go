package action

import (
	"path"
	"strings"
)

// installMark marks a command that fetches a named package and installs
// or runs it: new code from the network, whose name is all that differs
// between `pip install requests` and `pip install git+https://evil/x`.
const installMark = "installs-package"

// installers are the program and subcommand pairs that fetch the packages
// named by their operands; "" as the subcommand means every invocation
// (npx, uvx, bunx run the package they name).
var installers = set(
	"pip install", "pip3 install", "python -m pip", "python3 -m pip", "uv pip install", "uv add", "uv tool install", "uv tool run",
	"uvx ", "pipx install", "pipx run", "poetry add", "pdm add", "conda install", "mamba install",
	"npm install", "npm i", "npm add", "npm isntall", "npm exec", "npx ", "yarn add", "yarn global add", "yarn dlx",
	"pnpm add", "pnpm dlx", "pnpm install", "bun add", "bun install", "bunx ", "deno install",
	"go install", "go get", "go run", "cargo install", "cargo add", "gem install", "bundle add",
	"brew install", "brew reinstall", "apt install", "apt-get install", "dnf install", "yum install", "apk add",
	"snap install", "flatpak install", "port install", "nix-env -i", "composer require", "dotnet add", "dotnet tool",
	"mix archive.install", "helm install", "helm upgrade",
)

// registryFlags fetch the packages from another place than the usual
// registry: every package then is new code.
var registryFlags = set("--registry", "--index-url", "-i", "--extra-index-url", "--find-links", "-f", "--trusted-host", "--source", "--index")

// packageManagers are the programs whose every subcommand may fetch
// packages.
var packageManagers = set("npm", "pnpm", "yarn", "bun", "npx", "pnpx", "bunx", "pip", "pip3", "uv", "poetry", "pipenv", "cargo", "gem", "bundle", "composer")

// elsewhereFlags make a package manager fetch from another place, through
// a proxy, without checking TLS, or install into the machine's global
// prefix.
var elsewhereFlags = set("--proxy", "--https-proxy", "--http-proxy", "--strict-ssl", "--ca", "--cafile",
	"--userconfig", "--globalconfig", "--cert", "--trusted-host", "--index-url", "--extra-index-url", "--find-links", "--registry", "--index",
	"--source", "--config-file", "--config")

// globalFlags install into the machine's global prefix, for every shell.
var globalFlags = set("-g", "--global", "--location")

// installingSubs are the subcommands that install what the project needs.
var installingSubs = set("ci", "install", "i", "add", "rebuild", "rb", "link", "ln", "update", "up", "exec", "x", "dlx", "sync")

// fetchesElsewhere reports whether a package manager's arguments carry
// one of elsewhereFlags or a scope's registry (--@evil:registry=…), or,
// for a subcommand that installs, one of globalFlags.
func fetchesElsewhere(args []word, sub string) bool {
	sub1, _, _ := strings.Cut(sub, " ")
	for _, a := range args {
		name, _, _ := strings.Cut(a.text, "=")
		if !strings.HasPrefix(name, "-") {
			continue
		}
		if elsewhereFlags[name] || strings.HasPrefix(name, "--@") || strings.HasSuffix(name, ":registry") || globalFlags[name] && installingSubs[sub1] {
			return true
		}
	}
	return false
}

// refreshers fetch new versions of what the project depends on, or run
// its packages' install scripts again, with no package named.
var refreshers = set("npm update", "npm up", "npm upgrade", "npm rebuild", "npm rb", "pnpm update", "pnpm up", "yarn upgrade", "yarn up",
	"bun update", "cargo update", "go get", "pip install -U", "poetry update", "uv lock", "composer update", "bundle update", "gem update",
	// npm link installs the project (or a package) into the global
	// prefix, scripts and all, for every shell of the machine
	"npm link", "npm ln", "yarn link", "pnpm link", "pnpm ln", "bun link")

// installValueFlags take a value that is a file or option, not a package.
var installValueFlags = set("-r", "--requirement", "-c", "--constraint", "-e", "--editable", "--prefix", "--target", "-t",
	"--index-url", "-i", "--extra-index-url", "--registry", "--cache", "-C", "--dir", "--cwd", "-w", "--workspace", "--filter")

// installMarks returns installMark when prog sub fetches a package that an
// operand names. Local operands (., ./x, /abs, a requirements file after
// -r) name no package: `npm install`, `pip install -e .` and `go install
// ./cmd/...` stay learnable by their subcommand.
func installMarks(prog, sub string, args []word) []string {
	if packageManagers[prog] && fetchesElsewhere(args, sub) {
		// npm ci --registry=…, --proxy, --strict-ssl=false: the
		// lockfile's packages from whatever that place serves, install
		// scripts and all (the eleventh red-team pass), under any
		// subcommand.
		return []string{installMark}
	}
	sub1, _, _ := strings.Cut(sub, " ")
	if refreshers[prog+" "+sub] || refreshers[prog+" "+sub1] {
		return []string{installMark} // new versions of every dependency, install scripts and all
	}
	skip := 0 // how many of the subcommand's words come before the packages
	switch {
	case sub != "" && installers[prog+" "+sub]:
		skip = strings.Count(sub, " ") + 1
	case sub1 != "" && installers[prog+" "+sub1]:
		skip = 1 // cargo install ripgrep: the second word is the package
	case installers[prog+" "]:
	default:
		return nil
	}
	seen := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		if a.lit && strings.HasPrefix(t, "-") {
			if registryFlags[t] || registryFlags[strings.SplitN(t, "=", 2)[0]] {
				return []string{installMark} // packages from another registry
			}
			if installValueFlags[t] {
				i++
			}
			continue
		}
		if seen < skip && a.lit && strings.Contains(sub, t) {
			seen++
			continue
		}
		if a.lit && (t == "." || strings.HasPrefix(t, "./") && !strings.HasPrefix(path.Clean(t), "..")) {
			continue // the project itself: ./cmd/..., pip install -e .
		}
		return []string{installMark}
	}
	return nil
}

// InstallsPackage reports whether a part fetches a package it names (the
// installs-package mark): each new package is new code, so approving one
// says nothing about the next.
func InstallsPackage(p Part) bool {
	for _, k := range p.Keys[1:min(len(p.Keys), 5)] {
		if strings.HasSuffix(k, "]") && strings.Contains(k, installMark) {
			return true
		}
	}
	return false
}
