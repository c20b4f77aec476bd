package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/internal/fulltext/native"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// hostileQuery is one case of search/hostile-queries: a query, the bounds and deadline it runs
// with, how long it may take in all, and what it must end in: hits (want == "") or an error
// containing want.
type hostileQuery struct {
	name     string
	query    string
	bounds   pkft.QueryBounds
	deadline time.Duration
	within   time.Duration
	want     string
	// either accepts hits as well as the error (a deadline the query may beat).
	either bool
}

// nestedBoolean nests a boolean query levels deep.
func nestedBoolean(levels int) string {
	q := `{"match":{"query":"lake"}}`
	for range levels {
		q = `{"boolean":{"should":[` + q + `,{"match":{"query":"fox"}}]}}`
	}
	return q
}

func jsonQuery(kind string, body map[string]any) string {
	b, _ := json.Marshal(map[string]any{kind: body})
	return string(b)
}

// hostileQueries are the cases; "lake fox river 数据 quick" is six terms (each Han character is
// one).
func hostileQueries() []hostileQuery {
	words := func(n int) string { return strings.TrimSpace(strings.Repeat("lake fox river 数据 quick ", n/6)) }
	chars100k := strings.Repeat("lake fox river 数据 quick ", 100_000/28+1)[:100_000]
	lifted := pkft.QueryBounds{MaxBytes: -1, MaxTerms: -1, MaxDepth: -1}
	return []hostileQuery{
		{name: "repeated words, 100k characters", query: chars100k, within: time.Second, want: "(max query bytes)"},
		{name: "repeated words, 100k characters, phrase", query: jsonQuery("match_phrase", map[string]any{"query": chars100k}), within: time.Second, want: "(max query bytes)"},
		{name: "repeated words under the byte bound, over the term bound", query: words(1200), within: time.Second, want: "more than the maximum of 1024 terms (max query terms)"},
		{name: "repeated words at the term bound", query: words(1020), within: 60 * time.Second},
		{name: "phrase at the term bound", query: jsonQuery("match_phrase", map[string]any{"query": words(1020)}), within: 60 * time.Second},
		{name: "repeated words, 100k characters, bounds lifted, 2s deadline", query: chars100k, bounds: lifted,
			deadline: 2 * time.Second, within: 3 * time.Second, want: "context deadline exceeded", either: true},
		{name: "fuzzy match at the term bound, 2s deadline", query: jsonQuery("match", map[string]any{"query": words(960), "fuzziness": 2}),
			deadline: 2 * time.Second, within: 3 * time.Second, want: "context deadline exceeded", either: true},
		{name: "deep boolean nesting, 200 levels", query: nestedBoolean(200), within: time.Second, want: "deeper than the maximum of 64 levels (max query depth)"},
		{name: "boolean nesting, 20 levels", query: nestedBoolean(20), within: 30 * time.Second},
		{name: "deep boolean nesting past the engine's limit, bounds lifted", query: nestedBoolean(60), bounds: lifted, within: 5 * time.Second, want: "recursion limit exceeded"},
		{name: "invalid JSON, unterminated", query: `{"match":{"query":"lake"`, within: time.Second, want: "is not valid JSON: it ends inside an object or array"},
		{name: "invalid JSON, bad token", query: `{"match":{"query":lake}}`, within: time.Second, want: "is not valid JSON (at byte 18): invalid character 'l' looking for beginning of value"},
		{name: "invalid JSON, trailing data", query: `{"match":{"query":"lake"}} {"match":{}}`, within: time.Second, want: "has data after its JSON object"},
		{name: "unknown query type (refused before planning)", query: `{"bool":{"must":[{"match":{"query":"lake"}}]}}`, within: time.Second, want: `unknown query type "bool": the engine knows boolean, boost, match, match_phrase, multi_match, phrase`},
		{name: "unknown field (ignored by the engine and Java; refused by pkft before planning)", query: `{"match":{"query":"lake","nope":1}}`, within: time.Second, want: `query.match: unknown field "nope"`},
		{name: "NUL byte in plain words (escaped in the match query)", query: "lake\x00fox", within: 5 * time.Second},
		{name: "NUL byte in a JSON query", query: "{\"match\":{\"query\":\"lake\x00fox\"}}", within: time.Second, want: "invalid character '\\x00' in string literal"},
		{name: "blank", query: " \t ", within: time.Second, want: "must not be empty"},
	}
}

// casesHostileQueries registers search/hostile-queries (go): every hostile query ends within its
// bound with hits or with a clear error (it names the bound or the engine's reason and quotes
// at most the query's start), and pkft search under `timeout -s TERM 1` exits within 2 s while
// the engine is busy.
func casesHostileQueries(ct *caseTable) {
	ct.add(caseRow{Name: "search/hostile-queries", Direction: "go", Doc: docSearchHostileQueries,
		Sides: []caseSide{side("go", Consumer)},
		Run: func(ctx context.Context, ce *caseEnv) error {
			if _, err := native.Load(ctx, ""); err != nil {
				return unavailable{testenv.RequireNativeEnv, err}
			}
			root, err := RepoRoot()
			if err != nil {
				return err
			}
			dir := filepath.Join(ce.T.TempDir(), ftNgramTable)
			if err := os.CopyFS(dir, os.DirFS(filepath.Join(root, "testdata", "tables", "java", ftNgramTable))); err != nil {
				return err
			}
			tbl, err := pkft.Open(ctx, dir)
			if err != nil {
				return err
			}
			var errs []error
			for _, c := range hostileQueries() {
				start := time.Now()
				outcome, err := c.run(ctx, tbl)
				if err != nil {
					errs = append(errs, fmt.Errorf("%s: %w", c.name, err))
					continue
				}
				ce.T.Logf("%s: %s in %s (bound %s)", c.name, outcome, time.Since(start).Round(time.Millisecond), c.within)
			}
			if err := searchUnderTimeout(ctx, dir); err != nil {
				errs = append(errs, err)
			}
			return errors.Join(errs...)
		}})
}

// run runs the case and returns what it ended in.
func (c hostileQuery) run(ctx context.Context, tbl *pkft.Table) (string, error) {
	if c.deadline > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.deadline)
		defer cancel()
	}
	start := time.Now()
	res, err := tbl.Search(ctx, c.query, pkft.WithLimit(10), pkft.WithQueryBounds(c.bounds))
	if took := time.Since(start); took > c.within {
		return "", fmt.Errorf("took %s, the bound is %s", took, c.within)
	}
	switch {
	case err == nil && c.want != "" && !c.either:
		return "", fmt.Errorf("%d hit(s), want an error containing %q", len(res.Hits), c.want)
	case err != nil && c.want == "":
		return "", fmt.Errorf("want hits, got %v", err)
	case err != nil && !strings.Contains(err.Error(), c.want):
		return "", fmt.Errorf("error %.500q, want it to contain %q", err, c.want)
	case err != nil && len(err.Error()) > 600:
		return "", fmt.Errorf("the error is %d bytes long: %.600q", len(err.Error()), err)
	case err != nil:
		return "error containing " + strconv.Quote(c.want), nil
	}
	return fmt.Sprintf("%d hit(s)", len(res.Hits)), nil
}

// searchUnderTimeout runs pkft search with a query that keeps the engine busy for seconds
// under `timeout -s TERM 1` and requires it to be gone within 2 s. The query takes about 2 s on
// a quiet 2-core machine, so the signal comes in the middle of it (signalled at 2 s, a search that
// had just printed its hits ended without naming the signal).
func searchUnderTimeout(ctx context.Context, dir string) error {
	timeoutCmd, err := exec.LookPath("timeout")
	if err != nil {
		return fmt.Errorf("pkft search under timeout: %w", err)
	}
	bin, err := pkftCLI()
	if err != nil {
		return err
	}
	slow := jsonQuery("match", map[string]any{"query": strings.TrimSpace(strings.Repeat("lake fox river 数据 quick ", 160)), "fuzziness": 2})
	cmd := exec.CommandContext(ctx, timeoutCmd, "-s", "TERM", "1", bin, "search", dir, "--query", slow)
	cmd.Env = append(os.Environ(), "TMPDIR="+filepath.Dir(dir))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err = cmd.Run()
	took := time.Since(start)
	if took > 2*time.Second {
		return fmt.Errorf("pkft search under timeout -s TERM 1 took %s, want at most 2s", took)
	}
	if took < time.Second {
		return fmt.Errorf("pkft search ended after %s, before the signal (%v): the query no longer keeps the engine busy; %s", took, err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "signal received") {
		return fmt.Errorf("pkft search under timeout: %v, stderr %q: want the signal named", err, stderr.String())
	}
	return nil
}

// docSearchHostileQueries describes search/hostile-queries.
const docSearchHostileQueries = "on Java's ngram table (the engine's slowest analyzer), a table of hostile queries " +
	"(`compat/runner/hostile_test.go`): repeated words to 100,000 characters (plain and as a " +
	"phrase), at and over the term bound, with the bounds lifted under a 2 s deadline, a fuzzy " +
	"match at the term bound under a 2 s deadline, boolean nesting of 20, 60 (past the engine's" +
	" recursion limit, bounds lifted) and 200 levels, invalid JSON (unterminated, a bad token, " +
	"trailing data, a raw NUL), an unknown query type (`bool`), an unknown field, a blank " +
	"query. Each ends within its stated bound (1 s for what the bounds refuse, 3 s under a " +
	"deadline, up to 60 s for the largest accepted queries) with hits or an error that names " +
	"the bound or the engine's reason and quotes at most the query's start; and `pkft search` " +
	"with a query that keeps the engine busy for seconds exits within 2 s under `timeout -s " +
	"TERM 1`."
