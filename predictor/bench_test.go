package predictor

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/limenhq/limen/action"
)

// The speed targets of DESIGN.md §2 are stated for a store of 1M answers
// over 10k users: Predict at most 2 µs at the median, and a rebuild of
// all counts at start at most 2 s.
const (
	benchAnswers = 1_000_000
	benchUsers   = 10_000
)

// benchAnswer is one stored answer, with its ladders as the server decodes
// them from the store: every key its own string.
type benchAnswer struct {
	user     string
	ladders  []action.Ladder
	approved bool
	at       time.Time
}

var (
	benchOnce sync.Once
	benchData []benchAnswer
)

// synthAnswers makes n answers over users: each user works in their own
// repository with a personal, Zipf-weighted vocabulary of commands drawn
// from a shared pool (git, npm, go, docker …), reads and edits files in a
// few directories, and now and then runs something of their own. About
// one answer in ten is a denial.
func synthAnswers(n, users int) []benchAnswer {
	r := rand.New(rand.NewPCG(1, 2))
	programs := []string{"git status", "git diff", "git log --oneline", "git push origin main", "git commit -m wip",
		"git checkout -b feature", "npm run test", "npm run build", "npm install", "npx prisma migrate dev",
		"go test ./...", "go build ./...", "go vet ./...", "docker compose up -d", "docker ps", "make", "make test",
		"cargo test", "cargo build --release", "python -m pytest", "pip install -r requirements.txt", "ls -la",
		"cat README.md", "grep -rn TODO src", "find . -name '*.go'", "rm -rf build", "kubectl get pods",
		"curl -s http://localhost:3000/health", "terraform plan", "gh pr create --fill", "yarn lint", "pnpm dev"}
	dirs := []string{"src", "internal", "cmd", "docs", "tests", "scripts", "web", "config"}
	exts := []string{".go", ".ts", ".tsx", ".py", ".md", ".json", ".yaml"}
	zipf := rand.NewZipf(r, 1.2, 1, uint64(len(programs)-1))
	out := make([]benchAnswer, 0, n)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// Keys and ladders live in a few large arrays rather than millions of
	// small objects: limend streams its answers from the store and keeps
	// none of them, so the benchmark's own data should not load the garbage
	// collector either. Each key still has its own bytes, as decoded.
	var text arena
	keys := make([]string, 0, 5*n)
	ladders := make([]action.Ladder, 0, 2*n)
	for i := range n {
		u := i % users
		user := fmt.Sprintf("u%05d", u)
		cwd := fmt.Sprintf("/home/%s/repo%d", user, u%7)
		var a action.Action
		switch k := r.IntN(10); {
		case k < 6:
			cmd := programs[(int(zipf.Uint64())+u)%len(programs)]
			if r.IntN(4) == 0 {
				cmd += fmt.Sprintf(" arg%d", r.IntN(20))
			}
			if r.IntN(10) == 0 {
				cmd += " && " + programs[r.IntN(len(programs))]
			}
			a = action.Action{Tool: "Bash", Input: map[string]any{"command": cmd}}
		case k < 9:
			tool := []string{"Read", "Edit", "Write"}[r.IntN(3)]
			p := fmt.Sprintf("%s/%s/file%d%s", cwd, dirs[r.IntN(len(dirs))], r.IntN(30), exts[r.IntN(len(exts))])
			a = action.Action{Tool: tool, Input: map[string]any{"file_path": p}}
		default:
			a = action.Action{Tool: "Bash", Input: map[string]any{"command": fmt.Sprintf("./scripts/own-%d.sh --user %s", r.IntN(50), user)}}
		}
		a.User, a.Cwd = user, cwd
		start := len(ladders)
		for _, p := range action.Parts(a) {
			from := len(keys)
			for _, k := range p.Keys {
				keys = append(keys, text.clone(k))
			}
			ladders = append(ladders, action.Ladder(keys[from:len(keys):len(keys)]))
		}
		out = append(out, benchAnswer{user: user, ladders: ladders[start:len(ladders):len(ladders)], approved: r.IntN(10) != 0, at: t0.Add(time.Duration(i) * 3 * time.Second)})
	}
	return out
}

// arena hands out strings carved from large shared blocks.
type arena struct{ block []byte }

func (a *arena) clone(s string) string {
	if s == "" {
		return ""
	}
	if len(a.block)+len(s) > cap(a.block) {
		a.block = make([]byte, 0, max(1<<20, len(s)))
	}
	from := len(a.block)
	a.block = append(a.block, s...)
	return unsafe.String(&a.block[from], len(s))
}

func benchAnswersOnce() []benchAnswer {
	benchOnce.Do(func() { benchData = synthAnswers(benchAnswers, benchUsers) })
	return benchData
}

func rebuild(answers []benchAnswer) *Estimator {
	e := NewEstimator(DefaultConfig())
	for _, a := range answers {
		e.Observe(a.user, a.ladders, a.approved, a.at)
	}
	return e
}

// BenchmarkPredict is one decision's prediction with 1M answers over 10k
// users in memory. Besides the mean (ns/op) it reports the median and
// 99th percentile of single calls, measured on the side.
func BenchmarkPredict(b *testing.B) {
	answers := benchAnswersOnce()
	e := rebuild(answers)
	now := answers[len(answers)-1].at
	r := rand.New(rand.NewPCG(3, 4))
	queries := make([]benchAnswer, 4096)
	for i := range queries {
		queries[i] = answers[r.IntN(len(answers))]
	}

	b.ReportAllocs()
	i := 0
	for b.Loop() {
		q := queries[i%len(queries)]
		e.PredictEach(q.user, q.ladders, now)
		i++
	}

	lat := make([]time.Duration, 100_000)
	for j := range lat {
		q := queries[j%len(queries)]
		t := time.Now()
		e.PredictEach(q.user, q.ladders, now)
		lat[j] = time.Since(t)
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns")
}

// BenchmarkRebuild replays 1M stored answers into a fresh estimator, as
// limend does at start (the store's own read time is not included; see
// internal/server's BenchmarkRebuild). It also reports the heap the counts
// hold once built (heap-MiB, plus key-text-MiB for the key strings).
func BenchmarkRebuild(b *testing.B) {
	answers := benchAnswersOnce()
	b.ReportAllocs()
	for b.Loop() {
		rebuild(answers)
	}
	b.StopTimer()
	heap, e := heldBy(func() *Estimator { return rebuild(answers) })
	b.ReportMetric(heap, "heap-MiB")
	b.ReportMetric(float64(len(e.users)), "users")
	keys := 0
	for _, p := range e.users {
		keys += p.used
	}
	b.ReportMetric(float64(keys), "user-keys")
	b.ReportMetric(float64(len(e.keys)), "distinct-keys")
	// The key strings are shared with the benchmark's answers, so the heap
	// figure above leaves them out; limend holds them alone.
	text := 0
	for k := range e.keys {
		text += len(k)
	}
	b.ReportMetric(float64(text)/(1<<20), "key-text-MiB")
}

// storedAnswers is benchmark answers laid out as limend reads them from
// the store: the user and key bytes of every answer in one block (which
// the garbage collector need not scan), handed to ObserveBytes as slices.
type storedAnswers struct {
	text     []byte
	spans    []int32 // per answer: user start and end, ladder count; per ladder: key count; per key: start and end
	at       []int64
	approved []bool
}

func storeAnswers(answers []benchAnswer) *storedAnswers {
	s := &storedAnswers{}
	add := func(t string) {
		s.spans = append(s.spans, int32(len(s.text)))
		s.text = append(s.text, t...)
		s.spans = append(s.spans, int32(len(s.text)))
	}
	for _, a := range answers {
		add(a.user)
		s.spans = append(s.spans, int32(len(a.ladders)))
		for _, l := range a.ladders {
			s.spans = append(s.spans, int32(len(l)))
			for _, k := range l {
				add(k)
			}
		}
		s.at = append(s.at, a.at.UnixNano())
		s.approved = append(s.approved, a.approved)
	}
	return s
}

// replay observes every answer, as the server's rebuild does.
func (s *storedAnswers) replay(e *Estimator) {
	var parts [][][]byte
	var keys [][]byte
	sp := s.spans
	for i := range s.at {
		user := s.text[sp[0]:sp[1]]
		n := int(sp[2])
		sp = sp[3:]
		parts, keys = parts[:0], keys[:0]
		for range n {
			k := int(sp[0])
			sp = sp[1:]
			from := len(keys)
			for range k {
				keys = append(keys, s.text[sp[0]:sp[1]])
				sp = sp[2:]
			}
			parts = append(parts, keys[from:len(keys):len(keys)])
		}
		e.ObserveBytes(user, parts, s.approved[i], time.Unix(0, s.at[i]))
	}
}

// BenchmarkRebuildBytes is BenchmarkRebuild as limend's start does it:
// the answers come as bytes (decoded in place from the store, here from
// one block) through ObserveBytes, which copies every new key and user.
// The heap it reports includes the key text.
func BenchmarkRebuildBytes(b *testing.B) {
	stored := storeAnswers(benchAnswersOnce())
	rebuild := func() *Estimator {
		e := NewEstimator(DefaultConfig())
		stored.replay(e)
		return e
	}
	b.ReportAllocs()
	for b.Loop() {
		rebuild()
	}
	b.StopTimer()
	heap, _ := heldBy(rebuild)
	b.ReportMetric(heap, "heap-MiB")
}

// heldBy returns the heap, in MiB, that the estimator build returns holds,
// and the estimator.
func heldBy(build func() *Estimator) (float64, *Estimator) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	e := build()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(build) // and what it holds, such as the answers
	return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / (1 << 20), e
}
