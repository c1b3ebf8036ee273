package policy

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/limenhq/limen/action"
	"github.com/pelletier/go-toml/v2"
)

// UnknownClass is the name of the fallback risk class: the one a part gets
// when no other class matches it. It has no matchers and is always last.
const UnknownClass = "unknown"

// Defaults of the scalar settings, used when the document leaves them out.
const (
	DefaultExploration    = 0.01
	DefaultHalfLife       = 2160 * time.Hour // 90 days
	DefaultAskTimeout     = 10 * time.Minute
	DefaultPredictTimeout = 100 * time.Millisecond
	// MaxExploration bounds Exploration: beyond it limen would ask about more
	// would-be allows than it lets through.
	MaxExploration = 0.5
)

// Class is a risk class: a set of actions whose mistakes cost the same.
type Class struct {
	// Name is unique in a policy.
	Name string
	// Costs give the class its own thresholds.
	Costs Costs
	// Rules match a part the way hard rules do (their Verdict is unused).
	Rules []Rule
	// Keys are globs (* is any text) over the keys of a part's ladder.
	Keys []string
	// Except rules and ExceptKeys take a part out of the class even when
	// Rules or Keys match it (find is read-only, find -delete is not).
	Except     []Rule
	ExceptKeys []string

	keys, exceptKeys []keyGlob
}

// Thresholds are the class's thresholds, from its costs.
func (c *Class) Thresholds() Thresholds { return c.Costs.Thresholds() }

// Matches reports whether the part belongs to the class. The unknown class
// matches every part.
func (c *Class) Matches(part action.Part, env Env) bool {
	if c.Name == UnknownClass {
		return true
	}
	if !anyRule(c.Rules, part, env) && !anyKey(c.keys, part.Keys) {
		return false
	}
	return !anyRule(c.Except, part, env) && !anyKey(c.exceptKeys, part.Keys)
}

func anyRule(rules []Rule, part action.Part, env Env) bool {
	for _, r := range rules {
		if r.Matches(part, env) {
			return true
		}
	}
	return false
}

func anyKey(globs []keyGlob, keys action.Ladder) bool {
	for _, g := range globs {
		for _, k := range keys {
			if g.MatchString(k) {
				return true
			}
		}
	}
	return false
}

// keyGlob is a compiled key glob with a literalFilter in front of it,
// because every key of every part meets every glob.
type keyGlob struct {
	filter literalFilter
	re     *regexp.Regexp
}

// MatchString reports whether the glob matches the key.
func (g keyGlob) MatchString(key string) bool {
	return g.filter.may(key) && g.re.MatchString(key)
}

// compileKeyGlob turns a key glob into a regexp: * is any text, \* a star.
func compileKeyGlob(glob string) (keyGlob, error) {
	if glob == "" {
		return keyGlob{}, errors.New("empty key glob")
	}
	body := globToRegexp(glob, ".*", ".*", "")
	re, err := regexp.Compile(`(?s)^` + body + `$`)
	if err != nil {
		return keyGlob{}, err
	}
	return keyGlob{filter: newLiteralFilter(body), re: re}, nil
}

// Policy is a parsed and validated policy document. It is immutable once
// parsed: to change a policy, parse a new document.
type Policy struct {
	// Costs are the top-level default costs; the unknown class uses them
	// unless the document gives it its own.
	Costs Costs
	// Classes are checked in order, first match wins; unknown is last.
	Classes []Class
	// Allow, Ask and Block are the hard rules. Block wins over ask, ask
	// over allow, allow over the prediction.
	Allow, Ask, Block []Rule
	// Exploration is the share of would-be allows that are asked anyway, so
	// that the predictor keeps receiving labels. In [0, MaxExploration].
	Exploration float64
	// HalfLife is how fast old answers fade; 0 means they never do.
	HalfLife time.Duration
	// AskTimeout is how long an ask waits for a person before it expires.
	AskTimeout time.Duration
	// PredictTimeout is the deadline of one prediction; past it, ask.
	PredictTimeout time.Duration
	// Delegates may answer other users' asks (delegate.go).
	Delegates []Delegate

	doc string
}

// Document returns the source text the policy was parsed from.
func (p *Policy) Document() string { return p.doc }

// Class returns the class of that name, or nil.
func (p *Policy) Class(name string) *Class {
	for i := range p.Classes {
		if p.Classes[i].Name == name {
			return &p.Classes[i]
		}
	}
	return nil
}

// ClassOf returns the first class that matches the part; the unknown class
// when none does. It never returns nil for a parsed policy.
func (p *Policy) ClassOf(part action.Part, env Env) *Class {
	for i := range p.Classes {
		if p.Classes[i].Matches(part, env) {
			return &p.Classes[i]
		}
	}
	return p.Class(UnknownClass)
}

// RuleFor returns the highest-precedence hard rule that matches one part:
// the first matching block rule, else the first ask rule, else the first
// allow rule. false means the prediction decides.
func (p *Policy) RuleFor(part action.Part, env Env) (Rule, bool) {
	for _, list := range [][]Rule{p.Block, p.Ask, p.Allow} {
		for _, r := range list {
			if r.Matches(part, env) {
				return r, true
			}
		}
	}
	return Rule{}, false
}

// RulesFor applies the hard rules to a compound action, part by part: a part
// that is blocked blocks the action, else a part that must be asked makes
// it an ask; the action is allowed by rule only when every part is. It
// returns the deciding rule (for an allow, the rule of the first part), or
// false when some part is left to the prediction and none is blocked or
// asked. An action without parts is never decided by rule.
func (p *Policy) RulesFor(parts []action.Part, env Env) (Rule, bool) {
	var ask, allow *Rule
	allAllowed := len(parts) > 0
	for _, part := range parts {
		r, ok := p.RuleFor(part, env)
		switch {
		case !ok:
			allAllowed = false
		case r.Verdict == Block:
			return r, true
		case r.Verdict == Ask:
			if ask == nil {
				ask = &r
			}
		case allow == nil:
			allow = &r
		}
	}
	switch {
	case ask != nil:
		return *ask, true
	case allAllowed && allow != nil:
		return *allow, true
	}
	return Rule{}, false
}

// document mirrors the TOML text. Pointers tell "absent" from zero.
type document struct {
	Costs    *costsDoc `toml:"costs"`
	Learning struct {
		Exploration *float64 `toml:"exploration"`
		HalfLife    *string  `toml:"half_life"`
	} `toml:"learning"`
	Asks struct {
		Timeout        *string `toml:"timeout"`
		PredictTimeout *string `toml:"predict_timeout"`
	} `toml:"asks"`
	Rules struct {
		Allow *[]string `toml:"allow"`
		Ask   *[]string `toml:"ask"`
		Block *[]string `toml:"block"`
	} `toml:"rules"`
	Class    []classDoc    `toml:"class"`
	Delegate []delegateDoc `toml:"delegate"` // delegate.go
}

// withDefaults fills in, from the shipped document, the rule lists and the
// classes d leaves out, so that a short hand-written document changes what
// it says and keeps the shipped protections: the block rules that stop
// rm -rf / or an agent answering its own asks, and the risk classes. An
// empty list (block = []) or a document of its own classes is kept as
// written.
func (d *document) withDefaults() {
	def := shippedDocument()
	if d.Rules.Allow == nil {
		d.Rules.Allow = def.Rules.Allow
	}
	if d.Rules.Ask == nil {
		d.Rules.Ask = def.Rules.Ask
	}
	if d.Rules.Block == nil {
		d.Rules.Block = def.Rules.Block
	}
	if len(d.Class) == 0 {
		d.Class = def.Class
	}
}

// LeftOut names the rule lists and classes that doc leaves out, and so
// takes from DefaultDocument ("rules.block", …, "class"), in document order;
// nil for a document that does not decode.
func LeftOut(doc string) []string {
	var d document
	if err := toml.NewDecoder(strings.NewReader(doc)).Decode(&d); err != nil {
		return nil
	}
	var out []string
	for _, l := range []struct {
		name string
		v    *[]string
	}{{"rules.allow", d.Rules.Allow}, {"rules.ask", d.Rules.Ask}, {"rules.block", d.Rules.Block}} {
		if l.v == nil {
			out = append(out, l.name)
		}
	}
	if len(d.Class) == 0 {
		out = append(out, "class")
	}
	return out
}

// shippedDocument is DefaultDocument decoded, once.
var shippedDocument = sync.OnceValue(func() document {
	var d document
	if err := toml.NewDecoder(strings.NewReader(DefaultDocument)).DisallowUnknownFields().Decode(&d); err != nil {
		panic("policy: the default document does not decode: " + err.Error())
	}
	return d
})

type costsDoc struct {
	Allow *float64 `toml:"allow"`
	Block *float64 `toml:"block"`
	Ask   *float64 `toml:"ask"`
}

type classDoc struct {
	Name       string    `toml:"name"`
	Costs      *costsDoc `toml:"costs"`
	Match      []string  `toml:"match"`
	Keys       []string  `toml:"keys"`
	Except     []string  `toml:"except"`
	ExceptKeys []string  `toml:"except_keys"`
}

// fill returns base with the fields the document sets replaced.
func (d *costsDoc) fill(base Costs) Costs {
	if d == nil {
		return base
	}
	if d.Allow != nil {
		base.Allow = *d.Allow
	}
	if d.Block != nil {
		base.Block = *d.Block
	}
	if d.Ask != nil {
		base.Ask = *d.Ask
	}
	return base
}

var classNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// Parse parses and validates a policy document. It is strict: an unknown key
// is refused, and every error names the field at fault (several errors are
// joined). On any error the policy is nil, so the caller keeps the one in
// force.
//
// What the document leaves out takes its default: costs 20/2/1 (a partial
// costs table fills the rest from them; a class's from the top-level
// costs), exploration 0.01, half_life 2160h, asks.timeout 10m,
// asks.predict_timeout 100ms, and each of rules.allow, rules.ask and
// rules.block and the classes as DefaultDocument has them (see
// withDefaults). A document with classes lists all of them, and an unknown
// class with the top-level costs is added last if it does not name one.
func Parse(doc string) (*Policy, error) {
	var d document
	dec := toml.NewDecoder(strings.NewReader(doc)).DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return nil, decodeError(err)
	}
	d.withDefaults()
	var errs []error
	add := func(prefix string, err error) {
		if err == nil {
			return
		}
		for _, e := range unjoin(err) {
			errs = append(errs, fmt.Errorf("%s%v", prefix, e))
		}
	}
	p := &Policy{doc: doc}

	p.Costs = d.Costs.fill(DefaultCosts)
	add("", p.Costs.Validate())

	p.Exploration = DefaultExploration
	if x := d.Learning.Exploration; x != nil {
		p.Exploration = *x
		if math.IsNaN(*x) || *x < 0 || *x > MaxExploration {
			add("", fmt.Errorf("learning.exploration must be in [0, %v] (got %v): it is the share of would-be allows asked anyway", MaxExploration, *x))
		}
	}
	duration := func(field string, s *string, def time.Duration, zeroOK bool) time.Duration {
		if s == nil {
			return def
		}
		v, err := time.ParseDuration(*s)
		switch {
		case err != nil:
			add("", fmt.Errorf("%s %q is not a duration: write it like \"90m\", \"2160h\" or \"20ms\"", field, *s))
		case v < 0 || (v == 0 && !zeroOK):
			want := "positive"
			if zeroOK {
				want = "zero or positive"
			}
			add("", fmt.Errorf("%s must be %s (got %q)", field, want, *s))
		}
		return v
	}
	p.HalfLife = duration("learning.half_life", d.Learning.HalfLife, DefaultHalfLife, true)
	p.AskTimeout = duration("asks.timeout", d.Asks.Timeout, DefaultAskTimeout, false)
	p.PredictTimeout = duration("asks.predict_timeout", d.Asks.PredictTimeout, DefaultPredictTimeout, false)

	rules := func(field string, v Verdict, patterns []string) []Rule {
		if patterns == nil {
			return nil
		}
		out := make([]Rule, 0, len(patterns))
		for i, s := range patterns {
			r, err := ParseRule(v, s)
			if err != nil {
				add(fmt.Sprintf("%s[%d] ", field, i), err)
				continue
			}
			out = append(out, r)
		}
		return out
	}
	p.Allow = rules("rules.allow", Allow, *d.Rules.Allow)
	p.Ask = rules("rules.ask", Ask, *d.Rules.Ask)
	p.Block = rules("rules.block", Block, *d.Rules.Block)

	seen := map[string]int{}
	for i, cd := range d.Class {
		where := fmt.Sprintf("class[%d] %q: ", i, cd.Name)
		switch prev, dup := seen[cd.Name]; {
		case cd.Name == "":
			add(fmt.Sprintf("class[%d]: ", i), errors.New("name is missing: every [[class]] needs name = \"...\""))
		case !classNameRE.MatchString(cd.Name):
			add(where, errors.New("name must be lower-case letters, digits, - and _"))
		case dup:
			add(where, fmt.Errorf("duplicate name: class[%d] already has it", prev))
		default:
			seen[cd.Name] = i
		}
		c := Class{Name: cd.Name, Costs: cd.Costs.fill(p.Costs)}
		// Only the costs the class writes: those it inherits from [costs]
		// are reported there, once, not again for every class.
		add(where, cd.Costs.fill(DefaultCosts).Validate())
		c.Rules = rules(where+"match", Ask, cd.Match)
		c.Except = rules(where+"except", Ask, cd.Except)
		keys := func(field string, globs []string) ([]string, []keyGlob) {
			var res []keyGlob
			for j, g := range globs {
				re, err := compileKeyGlob(g)
				if err != nil {
					add(fmt.Sprintf("%s%s[%d] ", where, field, j), err)
					continue
				}
				res = append(res, re)
			}
			return globs, res
		}
		c.Keys, c.keys = keys("keys", cd.Keys)
		c.ExceptKeys, c.exceptKeys = keys("except_keys", cd.ExceptKeys)
		if cd.Name == UnknownClass {
			if len(cd.Match)+len(cd.Keys)+len(cd.Except)+len(cd.ExceptKeys) > 0 {
				add(where, errors.New("the unknown class is the fallback for every part no other class matches: it takes no match, keys, except or except_keys"))
			}
			if i != len(d.Class)-1 {
				add(where, errors.New("the unknown class is the fallback: it must be the last [[class]]"))
			}
		} else if len(cd.Match)+len(cd.Keys) == 0 {
			add(where, errors.New("a class needs match rules or keys globs, or it can never apply"))
		}
		p.Classes = append(p.Classes, c)
	}
	if _, ok := seen[UnknownClass]; !ok {
		p.Classes = append(p.Classes, Class{Name: UnknownClass, Costs: p.Costs})
	}
	p.Delegates = parseDelegates(d.Delegate, p, add)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return p, nil
}

// decodeError turns a TOML error into one that names the key or the line.
func decodeError(err error) error {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) {
		var errs []error
		for _, e := range strict.Errors {
			row, _ := e.Position()
			errs = append(errs, fmt.Errorf("line %d: unknown key %q: see the default policy for the keys limen reads", row, strings.Join(e.Key(), ".")))
		}
		return errors.Join(errs...)
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, col := de.Position()
		msg := strings.TrimPrefix(de.Error(), "toml: ")
		if strings.Contains(msg, "value out of range") {
			// 1e400: a number, but beyond what a float64 holds.
			msg = "the number is too large for limen to compute with (the largest is about 1.8e308); only the ratios of the costs matter, so write a smaller one, such as 20"
		}
		if k := de.Key(); len(k) > 0 {
			return fmt.Errorf("line %d column %d: %s: %s", row, col, strings.Join(k, "."), msg)
		}
		return fmt.Errorf("line %d column %d: %s", row, col, msg)
	}
	return fmt.Errorf("policy document: %w", err)
}

// unjoin splits an errors.Join result so each line can carry a prefix.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// Default returns the policy of DefaultDocument. It panics only if the
// shipped document is broken, which the tests rule out.
func Default() *Policy {
	p, err := Parse(DefaultDocument)
	if err != nil {
		panic("policy: the default document does not parse: " + err.Error())
	}
	return p
}
