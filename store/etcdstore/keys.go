package etcdstore

import (
	"fmt"
	"strconv"
	"strings"
)

// keys are the names of the schema drawn in doc.go under one prefix.
type keys struct {
	schema, idReserved, answerSeq             string
	decisions, pendingAsks, answers, policies string
	grants, replicas                          string
}

func newKeys(prefix string) keys {
	if !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	return keys{
		schema:      prefix + "meta/schema_version",
		idReserved:  prefix + "meta/id_reserved",
		answerSeq:   prefix + "meta/answer_seq",
		decisions:   prefix + "decisions/",
		pendingAsks: prefix + "pending/",
		answers:     prefix + "answers/",
		policies:    prefix + "policies/",
		grants:      prefix + "grants/",
		replicas:    prefix + "replicas/",
	}
}

// key is prefix followed by n as 16 hex digits: fixed width, so etcd's
// byte order of keys is numeric order, as bbolt's big-endian keys are.
func (keys) key(prefix string, n uint64) string { return fmt.Sprintf("%s%016x", prefix, n) }

func (k keys) decision(id uint64) string { return k.key(k.decisions, id) }
func (k keys) pending(id uint64) string  { return k.key(k.pendingAsks, id) }
func (k keys) answer(seq uint64) string  { return k.key(k.answers, seq) }
func (k keys) policy(v uint64) string    { return k.key(k.policies, v) }

// id parses the number at the end of a key under prefix.
func (keys) id(prefix string, key []byte) (uint64, bool) {
	s, ok := strings.CutPrefix(string(key), prefix)
	if !ok || len(s) != 16 {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 16, 64)
	return n, err == nil
}
