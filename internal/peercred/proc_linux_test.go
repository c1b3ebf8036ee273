package peercred

import (
	"os"
	"testing"
)

func TestParseStat(t *testing.T) {
	tests := []struct {
		name, stat string
		want       Proc
		wantErr    bool
	}{
		{name: "plain", stat: "21073 (cat) R 21067 21067 5670 34816 -1 4194304 101 0 0 0 0 0 0 0 20 0 1 0 88476 3133440 390",
			want: Proc{PID: 21073, PPID: 21067, SID: 5670, TTY: 34816, Start: 88476, Comm: "cat"}},
		// A process may name itself anything: brackets and spaces in the
		// name must not shift the fields.
		{name: "name with brackets", stat: "7 (a) b (c) S 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 99 0 0",
			want: Proc{PID: 7, PPID: 1, SID: 7, Start: 99, Comm: "a) b (c"}},
		{name: "no name", stat: "7 a S 1 7 7 0", wantErr: true},
		{name: "short", stat: "7 (a) S 1 7 7 0", wantErr: true},
		{name: "bad ppid", stat: "7 (a) S x 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 99 0 0", wantErr: true},
		{name: "bad start", stat: "7 (a) S 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 -9 0 0", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseStat(tt.want.PID, tt.stat)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("parseStat(%q) = %+v, want an error", tt.stat, got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("parseStat(%q) = %+v, %v; want %+v", tt.stat, got, err, tt.want)
			}
		})
	}
}

func TestReadProcSelf(t *testing.T) {
	p, err := ReadProc(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if p.PPID != os.Getppid() || p.Start == 0 {
		t.Fatalf("ReadProc(self) = %+v; want ppid %d and a start time", p, os.Getppid())
	}
	if _, err := ReadProc(1 << 30); err == nil {
		t.Fatal("ReadProc of a pid that cannot exist: no error")
	}
}
