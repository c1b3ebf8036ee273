package main

import (
	"fmt"
	"strings"
)

// The policy documents limenctl compares are a few hundred lines, so a
// longest-common-subsequence diff over the lines that differ (after the
// common head and tail are set aside) is small, exact and fast enough; past
// maxLCSCells it falls back to replacing the differing middle whole, which
// is still a correct diff, only not the shortest.
const maxLCSCells = 4 << 20

// diffOp is one line of an edit script: ' ' kept, '-' removed, '+' added.
type diffOp struct {
	kind byte
	line string
}

// splitLines splits a document into lines without their newlines; a
// missing final newline is not a line of its own.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// lineDiff returns an edit script that turns a into b.
func lineDiff(a, b []string) []diffOp {
	var ops []diffOp
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		ops = append(ops, diffOp{' ', a[pre]})
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if len(ma)*len(mb) > maxLCSCells {
		for _, l := range ma {
			ops = append(ops, diffOp{'-', l})
		}
		for _, l := range mb {
			ops = append(ops, diffOp{'+', l})
		}
	} else {
		ops = append(ops, lcsDiff(ma, mb)...)
	}
	for _, l := range a[len(a)-suf:] {
		ops = append(ops, diffOp{' ', l})
	}
	return ops
}

// lcsDiff is the textbook dynamic programme: n[i][j] is the length of the
// longest common subsequence of a[i:] and b[j:].
func lcsDiff(a, b []string) []diffOp {
	w := len(b) + 1
	n := make([]int, (len(a)+1)*w)
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				n[i*w+j] = n[(i+1)*w+j+1] + 1
			} else {
				n[i*w+j] = max(n[(i+1)*w+j], n[i*w+j+1])
			}
		}
	}
	var ops []diffOp
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			ops = append(ops, diffOp{' ', a[i]})
			i++
			j++
		case n[(i+1)*w+j] >= n[i*w+j+1]:
			ops = append(ops, diffOp{'-', a[i]})
			i++
		default:
			ops = append(ops, diffOp{'+', b[j]})
			j++
		}
	}
	for ; i < len(a); i++ {
		ops = append(ops, diffOp{'-', a[i]})
	}
	for ; j < len(b); j++ {
		ops = append(ops, diffOp{'+', b[j]})
	}
	return ops
}

// unifiedDiff formats the difference of two documents as a unified diff
// with context lines of context, or returns "" when they are equal.
func unifiedDiff(from, to, fromName, toName string, context int) string {
	ops := lineDiff(splitLines(from), splitLines(to))
	var b strings.Builder
	// Walk the script, emitting a hunk around each run of changes; runs
	// closer than 2*context lines share a hunk.
	for start := 0; start < len(ops); {
		first := start
		for first < len(ops) && ops[first].kind == ' ' {
			first++
		}
		if first == len(ops) {
			break
		}
		lo := max(first-context, start)
		hi := first
		for {
			for hi < len(ops) && ops[hi].kind != ' ' {
				hi++
			}
			next := hi // the next change after this run, if any
			for next < len(ops) && ops[next].kind == ' ' {
				next++
			}
			if next == len(ops) || next-hi > 2*context {
				hi = min(hi+context, len(ops))
				break
			}
			hi = next
		}
		if b.Len() == 0 {
			fmt.Fprintf(&b, "--- %s\n+++ %s\n", fromName, toName)
		}
		writeHunk(&b, ops, lo, hi)
		start = hi
	}
	return b.String()
}

// writeHunk writes ops[lo:hi] with its @@ header; line numbers count the
// lines of each side before lo.
func writeHunk(b *strings.Builder, ops []diffOp, lo, hi int) {
	aLine, bLine := 1, 1
	for _, op := range ops[:lo] {
		if op.kind != '+' {
			aLine++
		}
		if op.kind != '-' {
			bLine++
		}
	}
	var aN, bN int
	for _, op := range ops[lo:hi] {
		if op.kind != '+' {
			aN++
		}
		if op.kind != '-' {
			bN++
		}
	}
	// An empty side is numbered by the line before it, as diff -u does.
	if aN == 0 {
		aLine--
	}
	if bN == 0 {
		bLine--
	}
	fmt.Fprintf(b, "@@ -%s +%s @@\n", hunkRange(aLine, aN), hunkRange(bLine, bN))
	for _, op := range ops[lo:hi] {
		b.WriteByte(op.kind)
		b.WriteString(op.line)
		b.WriteByte('\n')
	}
}

func hunkRange(start, n int) string {
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

// diffStat counts the lines added and removed between two documents.
func diffStat(from, to string) (added, removed int) {
	for _, op := range lineDiff(splitLines(from), splitLines(to)) {
		switch op.kind {
		case '+':
			added++
		case '-':
			removed++
		}
	}
	return added, removed
}
