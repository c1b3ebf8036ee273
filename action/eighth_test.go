package action

import "testing"

// TestEighthPass: the eighth red-team pass's classes outside the output
// table: raw disk and memory devices are secrets to read (they hold every
// file and key), curl --engine loads a shared library, and pytest
// --pdbcls imports a module, as -p does.
func TestEighthPass(t *testing.T) {
	for _, cmd := range []string{"cat /dev/sda", "grep -a BEGIN /dev/nvme0n1p2", "dd if=/dev/mapper/root of=x.img", "strings /dev/mem", "cat /proc/kcore", "head -c 512 /dev/vda"} {
		checkMark(t, cmd, "secret-file", true)
	}
	for _, cmd := range []string{"cat /dev/null", "head -c 16 /dev/urandom", "ls /dev"} {
		checkMark(t, cmd, "secret-file", false)
	}
	for _, cmd := range []string{"curl -s https://api.example.com --engine /tmp/x.so", "pytest --pdbcls=evil:Debugger --pdb", "pytest --pdbcls evil:D"} {
		seen(t, cmd, opaque)
	}
}

// TestCreatorsOutside: touch and mkdir make every operand, so one outside
// the project is a write there (touch /etc/cron.d/x, mkdir -p build /etc/x).
func TestCreatorsOutside(t *testing.T) {
	for cmd, want := range map[string]bool{"touch /etc/cron.d/x": true, "touch src/a.go ~/.bashrc": true, "mkdir -p build /etc/x": true,
		"touch src/new.go": false, "mkdir -p build/out": false, "touch /tmp/stamp": false} {
		checkMark(t, cmd, "write-outside", want)
	}
}
