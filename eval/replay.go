package eval

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/limenhq/limen/action"
	"github.com/limenhq/limen/policy"
)

// Options tune a replay.
type Options struct {
	// Costs returns the costs an action is scored with: the policy in force
	// for it. Nil scores every action at policy.DefaultCosts.
	Costs func(Action) policy.Costs
	// Bins is the number of equal-width bins of the reliability table;
	// zero means 10.
	Bins int
	// PerUser keeps each user's metrics in the report.
	PerUser bool
	// Users, if set, picks the users replayed: the lines of any other
	// user are skipped before a strategy sees them, so they neither count
	// nor teach (the organisation is only the users picked).
	Users func(user string) bool
}

// UserHalf is the half, "a" or "b", a user id falls in: a fixed hash of
// the id (the low bit of its SHA-256's first byte: 0 in a, 1 in b). It
// splits a stream's users in two without looking at their actions, so that
// settings tuned on one half can be checked on the other. A cryptographic
// hash because a simple one splits ids like u01…u65 by the parity of
// their digits, which is no random split.
func UserHalf(user string) string {
	if sha256.Sum256([]byte(user))[0]&1 == 0 {
		return "a"
	}
	return "b"
}

// CostsUnder scores an action with the costs of the riskiest risk class
// (the highest C_allow) among its parts under pol, the class a wrong allow
// of the whole action would be paid in.
func CostsUnder(pol *policy.Policy) func(Action) policy.Costs {
	return func(a Action) policy.Costs {
		pa := a.Predictor()
		env := policy.Env{Cwd: pa.Cwd, Home: action.HomeDir(pa)}
		var worst policy.Costs
		for i, part := range action.Parts(pa) {
			c := pol.ClassOf(part, env).Costs
			if i == 0 || c.Allow > worst.Allow {
				worst = c
			}
		}
		return worst
	}
}

// Counts are the raw outcomes of a strategy on a set of actions.
type Counts struct {
	// Actions is how many actions were decided: Asks + Allows + Blocks.
	Actions int `json:"actions"`
	Asks    int `json:"asks"`
	Allows  int `json:"allows"`
	Blocks  int `json:"blocks"`
	// TrulyApproved and TrulyDenied split the actions by their label.
	TrulyApproved int `json:"truly_approved"`
	TrulyDenied   int `json:"truly_denied"`
	// WrongAllows are allowed actions labelled deny; WrongBlocks are
	// blocked actions labelled approve.
	WrongAllows int `json:"wrong_allows"`
	WrongBlocks int `json:"wrong_blocks"`
	// Failsafes are the asks that came from a failure, not the evidence.
	Failsafes int `json:"failsafe_asks"`
	// Cost is the summed cost of the asks, wrong allows and wrong blocks.
	Cost float64 `json:"cost"`
}

func (c *Counts) add(d Decision, approve bool, costs policy.Costs) {
	c.Actions++
	if approve {
		c.TrulyApproved++
	} else {
		c.TrulyDenied++
	}
	switch d.Verdict {
	case policy.Allow:
		c.Allows++
		if !approve {
			c.WrongAllows++
			c.Cost += costs.Allow
		}
	case policy.Block:
		c.Blocks++
		if approve {
			c.WrongBlocks++
			c.Cost += costs.Block
		}
	default:
		c.Asks++
		c.Cost += costs.Ask
		if d.Failsafe {
			c.Failsafes++
		}
	}
}

// Metrics are EVAL.md's metrics of one strategy over a set of actions.
type Metrics struct {
	Counts
	// AsksPer100 is asks per 100 actions.
	AsksPer100 float64 `json:"asks_per_100"`
	// WrongAllowRate is wrong allows per 100 truly denied actions.
	WrongAllowRate float64 `json:"wrong_allow_rate"`
	// WrongBlockRate is wrong blocks per 100 truly approved actions.
	WrongBlockRate float64 `json:"wrong_block_rate"`
	// CostPerAction is the expected cost per action under the policy in
	// force: (C_ask·asks + C_allow·wrong allows + C_block·wrong blocks)/actions.
	CostPerAction float64 `json:"cost_per_action"`
}

func (c Counts) metrics() Metrics {
	return Metrics{
		Counts:         c,
		AsksPer100:     per100(c.Asks, c.Actions),
		WrongAllowRate: per100(c.WrongAllows, c.TrulyDenied),
		WrongBlockRate: per100(c.WrongBlocks, c.TrulyApproved),
		CostPerAction:  ratio(c.Cost, float64(c.Actions)),
	}
}

func per100(n, of int) float64 { return 100 * ratio(float64(n), float64(of)) }

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// Bin is one row of a reliability table.
type Bin struct {
	// Lo and Hi bound the predicted p of the bin: [Lo, Hi), the last bin
	// including 1.
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`

	// Asked is how many asked actions fell in the bin; MeanP their mean
	// prediction and Observed the share the person approved.
	Asked    int     `json:"asked"`
	MeanP    float64 `json:"mean_p"`
	Observed float64 `json:"observed"`
}

// Calibration scores the predictions behind a strategy's asks against the
// answers they got.
type Calibration struct {
	// Scored is the number of asked actions that carried a prediction.
	Scored int `json:"scored"`
	// Brier is the mean squared difference between p and the answer (1 for
	// approve); 0 is perfect, 0.25 is a coin.
	Brier float64 `json:"brier"`
	Bins  []Bin   `json:"bins"`

	sumP      []float64
	approvals []int
	sq        float64
}

func newCalibration(bins int) *Calibration {
	c := &Calibration{Bins: make([]Bin, bins), sumP: make([]float64, bins), approvals: make([]int, bins)}
	for i := range c.Bins {
		c.Bins[i].Lo, c.Bins[i].Hi = float64(i)/float64(bins), float64(i+1)/float64(bins)
	}
	return c
}

func (c *Calibration) add(p float64, approve bool) {
	i := min(int(p*float64(len(c.Bins))), len(c.Bins)-1)
	i = max(i, 0)
	y := 0.0
	if approve {
		y = 1
		c.approvals[i]++
	}
	c.Scored++
	c.Bins[i].Asked++
	c.sumP[i] += p
	c.sq += (p - y) * (p - y)
}

func (c *Calibration) finish() {
	c.Brier = ratio(c.sq, float64(c.Scored))
	for i := range c.Bins {
		c.Bins[i].MeanP = ratio(c.sumP[i], float64(c.Bins[i].Asked))
		c.Bins[i].Observed = ratio(float64(c.approvals[i]), float64(c.Bins[i].Asked))
	}
}

// Latency is how fast a strategy decided.
type Latency struct {
	// PerSecond is decisions per second of the strategy's own time
	// (deciding and learning), the stream's parsing excluded.
	PerSecond float64 `json:"decisions_per_second"`
	// P50 and P99 are per-decision latencies of Decide.
	P50 time.Duration `json:"p50_ns"`
	P99 time.Duration `json:"p99_ns"`
}

// UserMetrics are one user's metrics.
type UserMetrics struct {
	// User is the stream's user id.
	User string `json:"user"`
	Metrics
}

// Spread is how one metric varies over users.
type Spread struct {
	Min    float64 `json:"min"`
	Median float64 `json:"median"`
	Max    float64 `json:"max"`
}

// UserSpreads are the spreads over users of a strategy's main metrics.
type UserSpreads struct {
	AsksPer100     Spread `json:"asks_per_100"`
	WrongAllowRate Spread `json:"wrong_allow_rate"`
	CostPerAction  Spread `json:"cost_per_action"`
}

// spreadOf is the spread of metric over users; the median of an even
// number of users is the mean of the middle two.
func spreadOf(users []UserMetrics, metric func(Metrics) float64) Spread {
	if len(users) == 0 {
		return Spread{}
	}
	v := make([]float64, len(users))
	for i, u := range users {
		v[i] = metric(u.Metrics)
	}
	slices.Sort(v)
	n := len(v)
	return Spread{Min: v[0], Median: (v[(n-1)/2] + v[n/2]) / 2, Max: v[n-1]}
}

// NoRisk is the ByRisk key of actions whose stream line has no risk label.
const NoRisk = "none"

// Result is one strategy's outcome on a stream.
type Result struct {
	// Strategy is the strategy's name.
	Strategy string `json:"strategy"`
	// Overall covers every action of the stream.
	Overall Metrics `json:"overall"`
	// ByRisk splits the outcomes by the stream's risk label ("none" for
	// actions without one); strategies never see that label.
	ByRisk map[string]Metrics `json:"by_risk"`
	// PerUser is each user's metrics, by user id, when Options.PerUser
	// asked for them.
	PerUser []UserMetrics `json:"per_user,omitempty"`
	// Spreads say how the main metrics vary over the users, with PerUser:
	// an overall figure can hide a few users who pay for everyone.
	Spreads *UserSpreads `json:"user_spreads,omitempty"`
	// Calibration is nil when the strategy gave no probabilities.
	Calibration *Calibration `json:"calibration,omitempty"`
	Latency     Latency      `json:"latency"`
}

// Report is the outcome of every strategy on one stream.
type Report struct {
	// Actions and Users count the stream's lines and distinct users.
	Actions int `json:"actions"`
	Users   int `json:"users"`
	// Results are in the order the strategies were given.
	Results []Result `json:"results"`
}

// Result returns the named strategy's result, or nil.
func (r *Report) Result(name string) *Result {
	for i := range r.Results {
		if r.Results[i].Strategy == name {
			return &r.Results[i]
		}
	}
	return nil
}

// run accumulates one strategy's outcomes.
type run struct {
	s       Strategy
	all     Counts
	byRisk  map[string]*Counts
	perUser map[string]*Counts
	cal     *Calibration
	lat     []time.Duration
	spent   time.Duration
}

// Replay plays the stream read from r through every strategy, in the same
// pass, following EVAL.md: for each action in order, each strategy decides;
// only a strategy that asked is then told the answer. A strategy never
// receives the label of an action it allowed or blocked.
func Replay(r io.Reader, strategies []Strategy, opt Options) (*Report, error) {
	if len(strategies) == 0 {
		return nil, errors.New("replay: no strategies to replay")
	}
	if opt.Bins <= 0 {
		opt.Bins = 10
	}
	costsOf := opt.Costs
	if costsOf == nil {
		costsOf = func(Action) policy.Costs { return policy.DefaultCosts }
	}
	runs := make([]*run, len(strategies))
	for i, s := range strategies {
		runs[i] = &run{s: s, byRisk: make(map[string]*Counts), perUser: make(map[string]*Counts), cal: newCalibration(opt.Bins)}
	}
	users := make(map[string]bool)
	rd := newReader(r)
	n := 0
	for {
		l, err := rd.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("replay: %w", err)
		}
		if opt.Users != nil && !opt.Users(l.act.User) {
			continue
		}
		n++
		users[l.act.User] = true
		costs := costsOf(l.act)
		for _, ru := range runs {
			ru.step(l, costs)
		}
	}
	rep := &Report{Actions: n, Users: len(users)}
	for _, ru := range runs {
		rep.Results = append(rep.Results, ru.result(opt.PerUser))
	}
	return rep, nil
}

// step is the protocol for one action and one strategy.
func (ru *run) step(l labelled, costs policy.Costs) {
	if o, ok := ru.s.(Oracle); ok {
		// An oracle is a floor, not a strategy: it is told the answer.
		o.Foresee(l.act, l.approve)
	}
	start := time.Now()
	d := ru.s.Decide(l.act)
	took := time.Since(start)
	if d.Verdict == policy.Ask {
		// The only place a label crosses to a strategy (but an Oracle).
		ru.s.Learn(l.act, l.approve)
		if d.HasP {
			ru.cal.add(d.P, l.approve)
		}
	}
	ru.spent += time.Since(start)
	ru.lat = append(ru.lat, took)
	ru.all.add(d, l.approve, costs)
	risk := l.risk
	if risk == "" {
		risk = NoRisk
	}
	counts(ru.byRisk, risk).add(d, l.approve, costs)
	counts(ru.perUser, l.act.User).add(d, l.approve, costs)
}

func counts(m map[string]*Counts, k string) *Counts {
	c := m[k]
	if c == nil {
		c = &Counts{}
		m[k] = c
	}
	return c
}

func (ru *run) result(perUser bool) Result {
	res := Result{Strategy: ru.s.Name(), Overall: ru.all.metrics(), ByRisk: make(map[string]Metrics)}
	for k, c := range ru.byRisk {
		res.ByRisk[k] = c.metrics()
	}
	if perUser {
		for u, c := range ru.perUser {
			res.PerUser = append(res.PerUser, UserMetrics{User: u, Metrics: c.metrics()})
		}
		sort.Slice(res.PerUser, func(i, j int) bool { return res.PerUser[i].User < res.PerUser[j].User })
		res.Spreads = &UserSpreads{
			AsksPer100:     spreadOf(res.PerUser, func(m Metrics) float64 { return m.AsksPer100 }),
			WrongAllowRate: spreadOf(res.PerUser, func(m Metrics) float64 { return m.WrongAllowRate }),
			CostPerAction:  spreadOf(res.PerUser, func(m Metrics) float64 { return m.CostPerAction }),
		}
	}
	if ru.cal.Scored > 0 {
		ru.cal.finish()
		res.Calibration = ru.cal
	}
	res.Latency.PerSecond = ratio(float64(len(ru.lat)), ru.spent.Seconds())
	slices.Sort(ru.lat)
	res.Latency.P50 = quantile(ru.lat, 0.50)
	res.Latency.P99 = quantile(ru.lat, 0.99)
	return res
}

// quantile is the nearest-rank quantile of sorted durations.
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}
