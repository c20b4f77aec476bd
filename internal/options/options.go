// Package options holds pkft's one classification of every table option of Paimon 2.0.0: each
// key is honoured (Go implements what Java does with it, and a named test checks it), refused (a
// write, compaction or maintenance of a table that sets it to a value other than Java's default
// fails before anything is written, naming the key and the value) or inert (it cannot change what
// Go writes or how archives are built). A key the registry does not know is refused: the registry
// is an allow-list.
//
// The keys come from the option classes of the Paimon build (the Java runner's `options` command
// lists them by reflection; a conformance test fails when that build has a key this registry does
// not classify) plus the pattern keys Paimon reads under a prefix (fields.<column>.<option>,
// file-index.<type>.<option>, format options) that no ConfigOption declares.
package options

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/paimon-pkft/pkft/internal/mergetree"
	"github.com/paimon-pkft/pkft/internal/mergetree/aggregate"
	"github.com/paimon-pkft/pkft/internal/schema"
)

// Class is what pkft does with an option.
type Class int

// The classes of an option.
const (
	// Honoured: Go implements what Java does with the key (Entry.Test names the test that checks
	// it); values Go does not implement are refused by Entry.Accept.
	Honoured Class = iota + 1
	// Refused: a table that sets the key to anything but Java's default is not written, compacted
	// or maintained.
	Refused
	// Inert: the key cannot change what Go writes or how archives are built.
	Inert
)

// String returns the class as docs/options.md and `pkft options` print it.
func (c Class) String() string {
	switch c {
	case Honoured:
		return "honoured"
	case Refused:
		return "refused"
	case Inert:
		return "inert"
	}
	return "unknown"
}

// ErrRefused reports a table option pkft does not implement; the message names key and value.
var ErrRefused = errors.New("table option not supported by pkft")

// RuleError is an option value Java Paimon refuses as well, by a rule of its own configuration
// (SchemaValidation's bounds): no Paimon implementation writes such a table, so it is not a
// limitation of pkft. A Decision's Err wraps it instead of ErrRefused.
type RuleError struct {
	// Rule is Paimon's rule as its message states it ("snapshot.num-retained.min should be at
	// least 1").
	Rule string
}

func (e *RuleError) Error() string { return e.Rule + "; Java Paimon's SchemaValidation refuses it too" }

// Entry is the classification of one key, or of a family of keys when Key holds a wildcard: '*'
// (or '#', as Paimon spells the placeholder of a few keys) stands for one or more characters.
type Entry struct {
	// Key is the option key as Java spells it (or the pattern).
	Key string
	// Source is the Java class declaring the key ("" for pattern keys no ConfigOption declares).
	Source string
	// Type is the Java type of the option's value; Default its default as a table option would
	// spell it, valid when HasDefault.
	Type       string
	Default    string
	HasDefault bool
	// Fallback lists the deprecated or alternative keys Java also reads for this option.
	Fallback []string
	Class    Class
	// Reason says what Go does (Honoured), why Go does not (Refused) or why it does not matter
	// (Inert).
	Reason string
	// Test names the Go test (or conformance case) that checks a Honoured key.
	Test string
	// Accept, for a Honoured key, returns an error for the values Go does not implement.
	Accept func(value string) error
	// MaintainInert, when set, says why the key cannot change what an index-only maintenance
	// commit (pkft maintain, maintain --watch) writes: Maintain accepts the key at any value,
	// whatever Class and Accept decide for writes and compactions.
	MaintainInert string
}

// Pattern reports whether the entry is a family of keys.
func (e *Entry) Pattern() bool { return strings.ContainsAny(e.Key, "*#") }

// Registry is the classification of every key, indexed for look-up.
type Registry struct {
	entries  []Entry
	exact    map[string]int
	patterns []int
	// words holds the first word of every key and fallback key (see firstWord) and of
	// extraNamespaces: Paimon's option namespaces.
	words map[string]bool
}

// extraNamespaces are first words Paimon reads options under that no entry spells: the file
// format identifiers whose options Paimon passes to the format by prefix, and the file system
// options.
var extraNamespaces = []string{"parquet", "orc", "avro", "csv", "json", "text", "lance", "vortex", "blob", "format", "fs", "hadoop"}

// firstWord is the key up to its first '.' or '-', in lower case: "pk" for
// pk-full-text.index.columns, "fields" for fields.c.stats-mode, "owner" for owner.
func firstWord(key string) string {
	if i := strings.IndexAny(key, ".-"); i >= 0 {
		key = key[:i]
	}
	return strings.ToLower(strings.TrimSpace(key))
}

// Foreign reports whether key lies outside Paimon's option namespaces: no entry classifies it
// and its first word (up to the first '.' or '-') begins no Paimon 2.0.0 key, fallback key or
// key family, nor names a file format or file system namespace. Such a key (owner,
// team.contact) is user metadata that no Paimon writer reads. pk-anything, fields.anything,
// sink.anything and the like are never foreign.
func (r *Registry) Foreign(key string) bool {
	if _, ok := r.Lookup(key); ok {
		return false
	}
	w := firstWord(key)
	return w != "" && !strings.ContainsAny(w, "*#") && !r.words[w]
}

// New returns the registry of Paimon 2.0.0's table options.
func New() *Registry {
	all := slices.Concat(declaredOptions(), patternOptions())
	r := &Registry{entries: all, exact: make(map[string]int, 2*len(all)), words: map[string]bool{}}
	for _, w := range extraNamespaces {
		r.words[w] = true
	}
	for i := range all {
		e := &all[i]
		r.words[firstWord(e.Key)] = true
		for _, k := range e.Fallback {
			r.words[firstWord(k)] = true
		}
		if e.Pattern() {
			r.patterns = append(r.patterns, i)
		}
		r.exact[e.Key] = i
		for _, k := range e.Fallback {
			if _, dup := r.exact[k]; !dup {
				r.exact[k] = i
			}
		}
	}
	return r
}

// Entries returns every entry, in declaration order (Java's classes, then the patterns).
func (r *Registry) Entries() []Entry { return slices.Clone(r.entries) }

// Lookup returns the entry classifying key: the entry of that key or fallback key, else the first
// pattern matching it; false when no entry classifies the key (such a key is refused).
func (r *Registry) Lookup(key string) (Entry, bool) {
	if i, ok := r.exact[key]; ok {
		return r.entries[i], true
	}
	for _, i := range r.patterns {
		if matchWildcard(r.entries[i].Key, key) {
			return r.entries[i], true
		}
	}
	return Entry{}, false
}

// LookupExact returns the entry declaring key (or one of its fallback keys) exactly, without
// patterns; the registry coverage test uses it.
func (r *Registry) LookupExact(key string) (Entry, bool) {
	i, ok := r.exact[key]
	if !ok {
		return Entry{}, false
	}
	return r.entries[i], true
}

// Op is an operation whose table options the registry decides.
type Op int

// The operations. Write and Compact share one list (Class and Accept); Maintain, the index-only
// maintenance commit, also accepts every key an entry marks MaintainInert and every key outside
// Paimon's option namespaces (Foreign).
const (
	Write Op = iota + 1
	Compact
	Maintain
)

// String returns the operation's name.
func (o Op) String() string {
	switch o {
	case Write:
		return "write"
	case Compact:
		return "compact"
	case Maintain:
		return "maintain"
	}
	return "unknown"
}

// Ops lists the operations, in the order docs/options.md and `pkft options` print them.
var Ops = []Op{Write, Compact, Maintain}

// Decision is what pkft does with one option a table sets.
type Decision struct {
	Key, Value string
	// Op is the operation decided for.
	Op Op
	// Entry is the classifying entry; its Class is 0 when the key is unknown.
	Entry Entry
	// Class is the key's class for Op: Entry.Class, or Inert for a key Maintain does not depend
	// on (Entry.MaintainInert, or a Foreign key); 0 for another unknown key.
	Class Class
	// Reason says why, for Op (Entry.Reason, or the reason the maintenance does not depend on it).
	Reason string
	// Err is nil when pkft runs Op on the table with the option as set; else it names key, value
	// and reason, and wraps a *RuleError when Java Paimon refuses the value too, ErrRefused
	// otherwise.
	Err error
}

// Decide classifies one option the table sets to value for a write or a compaction (the
// strictest list).
func (r *Registry) Decide(key, value string) Decision { return r.DecideFor(Write, key, value) }

// reasonForeign is why the maintenance accepts a key outside Paimon's namespaces.
const reasonForeign = "not a Paimon option (no Paimon 2.0.0 key or key prefix spells it): user metadata such as owner, which no writer reads"

// DecideFor classifies one option the table sets to value for op.
func (r *Registry) DecideFor(op Op, key, value string) Decision {
	d := Decision{Key: key, Value: value, Op: op}
	e, ok := r.Lookup(key)
	if !ok {
		if op == Maintain && r.Foreign(key) {
			d.Class, d.Reason = Inert, reasonForeign
			return d
		}
		d.Err = fmt.Errorf("table option %s = %q: pkft does not know this option, so it cannot tell whether Go would %s the table as Java does: %w", key, value, op, ErrRefused)
		return d
	}
	d.Entry, d.Class, d.Reason = e, e.Class, e.Reason
	if op == Maintain && e.MaintainInert != "" {
		d.Class, d.Reason = Inert, e.MaintainInert
		return d
	}
	switch e.Class {
	case Honoured:
		if e.Accept != nil {
			if err := e.Accept(value); err != nil {
				if rule, ok := errors.AsType[*RuleError](err); ok {
					d.Err = fmt.Errorf("table option %s = %q: %w", key, value, rule)
				} else {
					d.Err = fmt.Errorf("table option %s = %q: %v: %w", key, value, err, ErrRefused)
				}
			}
		}
	case Refused:
		if !e.isDefault(value) {
			d.Err = fmt.Errorf("table option %s = %q: %s: %w", key, value, e.Reason, ErrRefused)
		}
	}
	return d
}

// DecideAll classifies every option of a table for a write or a compaction, ordered by key.
func (r *Registry) DecideAll(opts map[string]string) []Decision {
	return r.DecideAllFor(Write, opts)
}

// DecideAllFor classifies every option of a table for op, ordered by key.
func (r *Registry) DecideAllFor(op Op, opts map[string]string) []Decision {
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]Decision, len(keys))
	for i, k := range keys {
		out[i] = r.DecideFor(op, k, opts[k])
	}
	return out
}

// Check returns an error naming every option of opts pkft refuses for a write or a compaction
// (each error wraps ErrRefused), or nil when the table may be written, compacted and maintained.
func (r *Registry) Check(opts map[string]string) error { return r.CheckFor(Write, opts) }

// CheckFor returns an error naming every option of opts pkft refuses for op (each error wraps
// ErrRefused), or nil. When opts hold values Java Paimon refuses as well, the error names those
// alone (each wraps a *RuleError, none ErrRefused): the table is not one Paimon accepts, whatever
// pkft implements.
func (r *Registry) CheckFor(op Op, opts map[string]string) error {
	var refused, invalid []error
	for _, d := range r.DecideAllFor(op, opts) {
		if _, ok := errors.AsType[*RuleError](d.Err); ok {
			invalid = append(invalid, d.Err)
		} else if d.Err != nil {
			refused = append(refused, d.Err)
		}
	}
	if len(invalid) > 0 {
		return errors.Join(invalid...)
	}
	return errors.Join(refused...)
}

// isDefault reports whether value is Java's default of the option (so setting a refused key to
// its default is accepted).
func (e *Entry) isDefault(value string) bool {
	v := strings.TrimSpace(value)
	if !e.HasDefault {
		// A blank string option is unset for the writers that read it (they trim and test for
		// empty); any other value is a setting.
		return v == "" && (e.Type == "String" || e.Type == "")
	}
	def := strings.TrimSpace(e.Default)
	if strings.EqualFold(v, def) {
		return true
	}
	switch e.Type {
	case "Map":
		return def == "{}" && v == ""
	case "MemorySize":
		a, err1 := schema.ParseMemorySize(v)
		b, err2 := schema.ParseMemorySize(def)
		return err1 == nil && err2 == nil && a == b
	case "Integer", "Long":
		a, err1 := strconv.ParseInt(v, 10, 64)
		b, err2 := strconv.ParseInt(def, 10, 64)
		return err1 == nil && err2 == nil && a == b
	case "Double", "Float":
		a, err1 := strconv.ParseFloat(v, 64)
		b, err2 := strconv.ParseFloat(def, 64)
		return err1 == nil && err2 == nil && a == b
	}
	return false
}

// matchWildcard matches key against pattern, where each '*' or '#' stands for one or more
// characters.
func matchWildcard(pattern, key string) bool {
	parts := strings.FieldsFunc(pattern, func(r rune) bool { return r == '*' || r == '#' })
	if len(parts) == 0 {
		return key != ""
	}
	startsWild := pattern[0] == '*' || pattern[0] == '#'
	endsWild := pattern[len(pattern)-1] == '*' || pattern[len(pattern)-1] == '#'
	pos := 0
	for i, p := range parts {
		if i == 0 && !startsWild {
			if !strings.HasPrefix(key, p) {
				return false
			}
			pos = len(p)
			continue
		}
		if i == len(parts)-1 && !endsWild {
			// The last literal must end the key, after at least one wildcard character.
			return len(key)-len(p) > pos && strings.HasSuffix(key, p)
		}
		j := strings.Index(key[pos+1:], p)
		if j < 0 {
			return false
		}
		pos = pos + 1 + j + len(p)
	}
	return !endsWild || len(key) > pos
}

// acceptOneOf accepts the listed values (case-insensitive, trimmed).
func acceptOneOf(values ...string) func(string) error {
	return func(v string) error {
		for _, ok := range values {
			if strings.EqualFold(strings.TrimSpace(v), ok) {
				return nil
			}
		}
		return fmt.Errorf("Go implements only %s", strings.Join(values, ", "))
	}
}

// acceptManifestCodec accepts the manifest.compression values Go writes: Paimon's zstd (any
// case, AvroFileFormat#createCodecFactory) and the Avro codec names CodecFactory#fromString knows
// that Go implements.
func acceptManifestCodec(v string) error {
	if strings.EqualFold(v, "zstd") || slices.Contains([]string{"zstandard", "deflate", "snappy", "null"}, v) {
		return nil
	}
	return fmt.Errorf("Go writes manifests with zstd, zstandard, deflate, snappy or null (Avro's codec names; Java's writer fails on a name Avro does not know)")
}

// acceptLevelMap accepts a map option of levels ("0:lz4,1:zstd", integer keys) whose every value
// value accepts; blank is the empty map.
func acceptLevelMap(value func(string) error) func(string) error {
	return func(v string) error {
		if strings.TrimSpace(v) == "" {
			return nil
		}
		for _, kv := range strings.Split(v, ",") {
			k, val, ok := strings.Cut(kv, ":")
			if !ok {
				return fmt.Errorf("%q is not level:value", kv)
			}
			if _, err := strconv.Atoi(strings.TrimSpace(k)); err != nil {
				return fmt.Errorf("level %q is not a number", k)
			}
			if err := value(strings.TrimSpace(val)); err != nil {
				return fmt.Errorf("level %s: %w", strings.TrimSpace(k), err)
			}
		}
		return nil
	}
}

// acceptBool accepts what Java parses as a Boolean option (true or false, any case).
func acceptBool(v string) error {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "false":
		return nil
	}
	return fmt.Errorf("not a boolean")
}

// acceptInt accepts an integer (Java's Integer options).
func acceptInt(v string) error {
	if _, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32); err != nil {
		return fmt.Errorf("not an integer")
	}
	return nil
}

// acceptPaimonAtLeastOne accepts an integer of at least 1, the bound Java's SchemaValidation
// sets key (a smaller value is a *RuleError stating Paimon's rule).
func acceptPaimonAtLeastOne(key string) func(string) error {
	return func(v string) error {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
		if err != nil {
			return fmt.Errorf("not an integer")
		}
		if n < 1 {
			return &RuleError{Rule: key + " should be at least 1"}
		}
		return nil
	}
}

// acceptExpireLimit accepts a snapshot.expire.limit of at least 1. Java accepts any integer
// (ExpireSnapshotsImpl then expires up to earliest + limit, so a limit below 1 expires nothing
// and only writes the EARLIEST hint); pkft's expiry does not implement a limit below 1.
func acceptExpireLimit(v string) error {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
	if err != nil {
		return fmt.Errorf("not an integer")
	}
	if n < 1 {
		return fmt.Errorf("below 1, which Java Paimon accepts (its expiry then expires no snapshot) but pkft's expiry does not implement")
	}
	return nil
}

// acceptDuration accepts a value Paimon's TimeUtils#parseDuration parses.
func acceptDuration(v string) error {
	if _, err := mergetree.ParseDurationMillis(v); err != nil {
		return fmt.Errorf("not a duration")
	}
	return nil
}

// acceptMemorySize accepts a value Java's MemorySize parses.
func acceptMemorySize(v string) error {
	if _, err := schema.ParseMemorySize(v); err != nil {
		return fmt.Errorf("not a memory size")
	}
	return nil
}

// acceptFixedBucket accepts a positive bucket count (fixed bucket mode).
func acceptFixedBucket(v string) error {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return fmt.Errorf("not an integer")
	}
	if n <= 0 {
		return fmt.Errorf("only fixed bucket mode (bucket > 0) is implemented; dynamic (-1) and postpone (-2) bucket modes are not")
	}
	return nil
}

// aggregateFunctions lists what pkft does with each aggregate function Paimon 2.0.0 ships.
var aggregateFunctions = func() string {
	var refused []string
	for name, why := range aggregate.Unimplemented() {
		refused = append(refused, name+": "+why)
	}
	slices.Sort(refused)
	return "sum, product, min, max, last_value, last_non_null_value, first_value, first_non_null_value " +
		"(and its legacy name first_not_null_value), listagg, bool_and and bool_or as Java (a sum of a DECIMAL of at most 18 digits " +
		"past its precision, which Java keeps unchecked, fails the write); refused: " + strings.Join(refused, "; ")
}()

// acceptAggregateFunction accepts the aggregate functions pkft implements; a function Paimon
// ships that pkft does not is refused by name with the reason, an unknown name with Java's error.
func acceptAggregateFunction(v string) error {
	if why, ok := aggregate.Unimplemented()[v]; ok {
		return fmt.Errorf("pkft does not implement the aggregate function %s: %s", v, why)
	}
	if !aggregate.Known(v) {
		return fmt.Errorf("Use unsupported aggregation: %s or spell aggregate function incorrectly!", v)
	}
	return nil
}
