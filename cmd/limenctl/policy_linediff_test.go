package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestUnifiedDiff(t *testing.T) {
	lines := func(n int) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "l%d\n", i)
		}
		return b.String()
	}
	tests := []struct {
		name, from, to, want string
	}{
		{"equal", "a\nb\n", "a\nb\n", ""},
		{"both empty", "", "", ""},
		{"from empty", "", "a\nb\n", "--- A\n+++ B\n@@ -0,0 +1,2 @@\n+a\n+b\n"},
		{"to empty", "a\n", "", "--- A\n+++ B\n@@ -1 +0,0 @@\n-a\n"},
		{"one line changed", "a\nb\nc\n", "a\nB\nc\n", "--- A\n+++ B\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"context is cut at 3 lines", lines(10), strings.Replace(lines(10), "l5\n", "five\n", 1),
			"--- A\n+++ B\n@@ -2,7 +2,7 @@\n l2\n l3\n l4\n-l5\n+five\n l6\n l7\n l8\n"},
		{"far apart changes make two hunks", lines(20), strings.Replace(strings.Replace(lines(20), "l2\n", "two\n", 1), "l19\n", "nineteen\n", 1),
			"--- A\n+++ B\n@@ -1,5 +1,5 @@\n l1\n-l2\n+two\n l3\n l4\n l5\n@@ -16,5 +16,5 @@\n l16\n l17\n l18\n-l19\n+nineteen\n l20\n"},
		{"close changes share a hunk", lines(10), strings.Replace(strings.Replace(lines(10), "l3\n", "three\n", 1), "l8\n", "eight\n", 1),
			"--- A\n+++ B\n@@ -1,10 +1,10 @@\n l1\n l2\n-l3\n+three\n l4\n l5\n l6\n l7\n-l8\n+eight\n l9\n l10\n"},
		{"insertion", "a\nc\n", "a\nb\nc\n", "--- A\n+++ B\n@@ -1,2 +1,3 @@\n a\n+b\n c\n"},
		// The hand-written diff dropped the final newline from both sides,
		// so policy diff called these two documents the same.
		{"a final newline added", "a\nb", "a\nb\n", "--- A\n+++ B\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"},
		// udiff's own header would say "+5", which patch reads as one line.
		{"no context: an empty side is numbered by the line before", lines(10), strings.Replace(lines(10), "l5\n", "", 1), "--- A\n+++ B\n@@ -5 +4,0 @@\n-l5\n"},
		{"no context: an insertion", lines(3), strings.Replace(lines(3), "l2\n", "l2\nnew\n", 1), "--- A\n+++ B\n@@ -2,0 +3 @@\n+new\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			context := 3
			if strings.HasPrefix(tt.name, "no context") {
				context = 0
			}
			if got := unifiedDiff(tt.from, tt.to, "A", "B", context); got != tt.want {
				t.Errorf("unifiedDiff =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// applyUnified applies a unified diff made by unifiedDiff to from, checking
// every context and removed line against it, the way patch does.
func applyUnified(from []string, diff string) ([]string, error) {
	if diff == "" {
		return from, nil
	}
	ls := splitLines(diff)[2:]
	var out []string
	next := 0 // index into from of the next line not yet copied
	for i := 0; i < len(ls); {
		var aStart, aN, bStart, bN int
		h := strings.TrimSuffix(strings.TrimPrefix(ls[i], "@@ -"), " @@")
		aPart, bPart, _ := strings.Cut(h, " +")
		parse := func(s string, start, n *int) {
			a, b, ok := strings.Cut(s, ",")
			*start, _ = strconv.Atoi(a)
			*n = 1
			if ok {
				*n, _ = strconv.Atoi(b)
			}
		}
		parse(aPart, &aStart, &aN)
		parse(bPart, &bStart, &bN)
		at := aStart - 1
		if aN == 0 {
			at = aStart
		}
		out = append(out, from[next:at]...)
		next = at
		if len(out) != max(bStart-1, 0) && bN > 0 {
			return nil, fmt.Errorf("hunk %q: new side starts at %d, but %d lines precede it", ls[i], bStart, len(out))
		}
		i++
		for ; i < len(ls) && !strings.HasPrefix(ls[i], "@@"); i++ {
			op, text := ls[i][0], ls[i][1:]
			switch op {
			case ' ', '-':
				if next >= len(from) || from[next] != text {
					return nil, fmt.Errorf("line %d: diff has %q, from has another", next+1, text)
				}
				next++
				if op == ' ' {
					out = append(out, text)
				}
			case '+':
				out = append(out, text)
			}
		}
	}
	return append(out, from[next:]...), nil
}

// TestUnifiedDiffApplies: any diff, applied to its old side, gives the new
// side, whatever the context size.
func TestUnifiedDiffApplies(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		alphabet := rapid.SampledFrom([]string{"a", "b", "c", "d", "[rules]", "allow = 1", ""})
		from := rapid.SliceOfN(alphabet, 0, 40).Draw(t, "from")
		to := rapid.SliceOfN(alphabet, 0, 40).Draw(t, "to")
		context := rapid.IntRange(0, 4).Draw(t, "context")
		join := func(ls []string) string {
			if len(ls) == 0 {
				return ""
			}
			return strings.Join(ls, "\n") + "\n"
		}
		diff := unifiedDiff(join(from), join(to), "A", "B", context)
		if (diff == "") != slices.Equal(from, to) {
			t.Fatalf("diff %q for from %q to %q", diff, from, to)
		}
		got, err := applyUnified(from, diff)
		if err != nil {
			t.Fatalf("apply: %v\n%s", err, diff)
		}
		if !slices.Equal(got, to) {
			t.Fatalf("applying\n%s\nto %q gave %q; want %q", diff, from, got, to)
		}
		added, removed := diffStat(join(from), join(to))
		if len(from)-removed+added != len(to) {
			t.Fatalf("diffStat +%d -%d does not turn %d lines into %d", added, removed, len(from), len(to))
		}
	})
}

// splitLines splits a document into lines without their newlines; a
// missing final newline is not a line of its own.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
