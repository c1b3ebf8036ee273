package main

import (
	"fmt"
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

// unifiedDiff formats the difference of two documents as a unified diff
// with context lines of context, or returns "" when they are equal.
// go-udiff finds the line edits and groups them into hunks; the hunks are
// written here because udiff numbers an empty side by the line after it
// ("@@ -5 +5 @@" for a deletion under -U0, which patch reads as one line),
// where diff -u numbers it by the line before and counts it (",0").
func unifiedDiff(from, to, fromName, toName string, context int) string {
	hunks := diffHunks(from, to, context)
	if len(hunks) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", fromName, toName)
	for _, h := range hunks {
		var aN, bN int
		for _, l := range h.Lines {
			if l.Kind != udiff.Insert {
				aN++
			}
			if l.Kind != udiff.Delete {
				bN++
			}
		}
		aLine, bLine := h.FromLine, h.ToLine
		if aN == 0 {
			aLine--
		}
		if bN == 0 {
			bLine--
		}
		fmt.Fprintf(&b, "@@ -%s +%s @@\n", hunkRange(aLine, aN), hunkRange(bLine, bN))
		for _, l := range h.Lines {
			b.WriteString(map[udiff.OpKind]string{udiff.Delete: "-", udiff.Insert: "+", udiff.Equal: " "}[l.Kind])
			b.WriteString(l.Content)
			if !strings.HasSuffix(l.Content, "\n") {
				b.WriteString("\n\\ No newline at end of file\n")
			}
		}
	}
	return b.String()
}

// diffHunks returns the line hunks that turn from into to.
func diffHunks(from, to string, context int) []*udiff.Hunk {
	u, err := udiff.ToUnifiedDiff("", "", from, udiff.Lines(from, to), context)
	if err != nil {
		// Edits udiff computed from from always apply to it.
		panic(fmt.Sprintf("udiff: inconsistent edits: %v", err))
	}
	return u.Hunks
}

func hunkRange(start, n int) string {
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

// diffStat counts the lines added and removed between two documents.
func diffStat(from, to string) (added, removed int) {
	for _, h := range diffHunks(from, to, 0) {
		for _, l := range h.Lines {
			switch l.Kind {
			case udiff.Insert:
				added++
			case udiff.Delete:
				removed++
			}
		}
	}
	return added, removed
}
