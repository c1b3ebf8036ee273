package main

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/limenhq/limen/internal/hookfmt/hookout"
)

// errTooLarge is readCall's error for input beyond hookout.MaxInput; it is
// answered with hookout.TooLarge (deny), not the fail-closed ask.
var errTooLarge = errors.New("hook input is larger than " + strconv.Itoa(hookout.MaxInput) + " bytes")

// readCall reads the runtime's hook JSON from stdin: one JSON object, up to
// its closing brace and not until EOF, because a runtime may keep stdin
// open. It does not validate the object: limend parses it (hookfmt.Parse)
// and names what is wrong. It only finds where the object ends, and the
// hook_event_name member, which the fail-closed answer needs when limend
// cannot be asked.
func readCall(fd int, deadline time.Time) (call []byte, event string, err error) {
	buf := make([]byte, 0, 16<<10)
	var s objectScanner
	for {
		if len(buf) == cap(buf) {
			if len(buf) >= hookout.MaxInput { // the object has not ended within the limit
				return nil, s.event, errTooLarge
			}
			buf = append(buf, make([]byte, len(buf))...)[:len(buf)]
		}
		n, err := readFile(fd, buf[len(buf):cap(buf)], deadline)
		if err != nil {
			return nil, s.event, err
		}
		if n == 0 {
			if !s.started {
				return nil, s.event, errors.New("stdin is empty")
			}
			return nil, s.event, errors.New("stdin ended before the JSON object did")
		}
		buf = buf[:len(buf)+n]
		end, err := s.scan(buf)
		if err != nil {
			return nil, s.event, err
		}
		if end > 0 {
			if end-s.start > hookout.MaxInput {
				return nil, s.event, errTooLarge
			}
			// What came with the object is looked at, not waited for (a
			// runtime may keep stdin open): a second call in the same input
			// makes it ambiguous, and limen decides none of it.
			if len(bytes.TrimSpace(buf[end:])) > 0 {
				return nil, s.event, errors.New("stdin holds more than one JSON object; a hook gets one call at a time")
			}
			return buf[s.start:end], s.event, nil
		}
	}
}

// objectScanner finds the end of a JSON object in input that arrives in
// pieces. It tracks strings and nesting, and the top-level members' keys,
// to pick out hook_event_name's string value; anything else is limend's to
// check.
// Hand-written, not encoding/json, because of BenchmarkStart (docs/BENCHMARKS.md, "Hook start").
type objectScanner struct {
	started  bool
	start    int // offset of the opening brace
	pos      int // next byte to scan
	depth    int
	inString bool
	escape   bool
	strStart int // offset of the current string's opening quote
	// At the top level: whether the next string is a key, and whether
	// the last key was hook_event_name.
	wantKey, afterEventKey bool
	event                  string
}

// scan goes on from where it stopped; it returns the offset just past the
// object's closing brace, or 0 if the object has not ended yet.
func (s *objectScanner) scan(b []byte) (int, error) {
	for ; s.pos < len(b); s.pos++ {
		c := b[s.pos]
		if !s.started {
			switch c {
			case ' ', '\t', '\n', '\r':
				continue
			case '{':
				s.started, s.start, s.depth, s.wantKey = true, s.pos, 1, true
				continue
			}
			r, _ := utf8.DecodeRune(b[s.pos:])
			return 0, errors.New("stdin does not hold one JSON object: it starts with " + strconv.QuoteRune(r))
		}
		if s.inString {
			switch {
			case s.escape:
				s.escape = false
			case c == '\\':
				s.escape = true
			case c == '"':
				s.inString = false
				if s.depth == 1 {
					s.member(b[s.strStart+1 : s.pos])
				}
			}
			continue
		}
		switch c {
		case '"':
			s.inString, s.strStart = true, s.pos
		case '{', '[':
			s.depth++
		case '}', ']':
			s.depth--
			if s.depth == 0 {
				s.pos++
				return s.pos, nil
			}
		case ',':
			if s.depth == 1 {
				s.wantKey, s.afterEventKey = true, false
			}
		case ':':
			if s.depth == 1 {
				s.wantKey = false
			}
		}
	}
	return 0, nil
}

// member notes a top-level string: a key, or the value after one.
func (s *objectScanner) member(raw []byte) {
	if s.wantKey {
		// encoding/json matches keys without regard to case, and the last
		// of repeated keys wins.
		if s.afterEventKey = strings.EqualFold(unquote(raw), "hook_event_name"); s.afterEventKey {
			s.event = ""
		}
		return
	}
	if s.afterEventKey {
		s.event = unquote(raw)
	}
}

// unquote decodes a JSON string's contents, well enough for comparing
// with the plain ASCII names above; what it cannot decode compares unequal.
func unquote(raw []byte) string {
	if !strings.Contains(string(raw), `\`) {
		return string(raw)
	}
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' || i+1 == len(raw) {
			b.WriteByte(c)
			continue
		}
		i++
		switch raw[i] {
		case 'u':
			if i+4 >= len(raw) {
				return ""
			}
			r, err := strconv.ParseUint(string(raw[i+1:i+5]), 16, 16)
			if err != nil {
				return ""
			}
			b.WriteRune(rune(r))
			i += 4
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		default:
			b.WriteByte(raw[i])
		}
	}
	return b.String()
}
