package runner

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"

	"github.com/paimon-pkft/pkft/internal/pkfulltext"
)

// malformedTexts are texts with malformed UTF-8 and NULs, as a foreign writer may leave them in a
// data file.
var malformedTexts = []string{
	"alpha\xe2\x82beta",          // a three-byte sequence cut short
	"gamma\xff\xfedelta",         // two invalid bytes
	"\xed\xa0\x80surrogate",      // an encoded surrogate
	"over\xc0\xaflong",           // an overlong encoding
	"tail\xf0\x9f\x98",           // a four-byte sequence cut off by the end
	"nul\x00inside\x00text",      // NULs
	"mixed \xf4\x90\x80\x80 é 中", // beyond U+10FFFF
}

// casesMalformedText registers text/malformed-utf8 (go->java) — Go, through its runner, writes texts with malformed UTF-8 and
// NULs into a Java-written full-text table and compacts it; Java reads each text as
// pkfulltext.DecodeLikeJava says (the string Go's archive builder hands the engine, before NUL
// becomes U+0001), and Java's dump and full-text state equal Go's.
func casesMalformedText(ct *caseTable) {
	impls, runners := consumerRunners(ct)
	for _, impl := range producerImpls(impls, Writer, Compactor) {
		ct.add(caseRow{Name: "text/malformed-utf8", Direction: as(impl, "go->java"), Doc: docTextMalformedUtf8,
			Sides: []caseSide{side(impl, Writer, Compactor), side("java", Consumer)},
			Uses:  []caseUse{runnerOf(runners, impl, "write", "compact"), ownJava(nil)},
			Run: func(ctx context.Context, ce *caseEnv) error {
				goP, p := ce.runner(impl), ce.runner("java")
				root, err := RepoRoot()
				if err != nil {
					return err
				}
				path := filepath.Join(ce.T.TempDir(), "ft-default-partitioned")
				if err := os.CopyFS(path, os.DirFS(filepath.Join(root, "testdata", "tables", "java", "ft-default-partitioned"))); err != nil {
					return err
				}
				// Go's runner writes the texts' bytes as they are (write's stringBytes: a JSON string
				// cannot carry malformed UTF-8), one commit.
				want := map[float64]string{}
				var rows []row
				for i, s := range malformedTexts {
					id := 1000 + i
					rows = append(rows, row{"region": "eu", "dt": "2024-01-31", "id": id, "content": base64.StdEncoding.EncodeToString([]byte(s))})
					want[float64(id)] = pkfulltext.DecodeLikeJava([]byte(s))
				}
				if err := goP.Call(ctx, "write", map[string]any{"path": path, "rows": rows, "stringBytes": []string{"content"}}, nil); err != nil {
					return fmt.Errorf("go write: %w", err)
				}
				// Compact, so that a reader of this deletion-vector table sees the rows and the top level
				// gets its archive built from them.
				if err := goCompact(ctx, goP, path); err != nil {
					return err
				}
				var read javaRows
				if err := p.Call(ctx, "read", map[string]any{"path": path}, &read); err != nil {
					return err
				}
				seen := 0
				for _, r := range read.Rows {
					id, _ := r["id"].(float64)
					w, ok := want[id]
					if !ok || r["region"] != "eu" {
						continue
					}
					seen++
					if got, _ := r["content"].(string); got != w {
						return fmt.Errorf("row %v: Java reads %+q, Go decodes %+q", id, got, w)
					}
				}
				if seen != len(want) {
					return fmt.Errorf("Java read %d of the %d rows", seen, len(want))
				}
				j, err := javaDump(ctx, p, path)
				if err != nil {
					return err
				}
				g, err := goDump(ctx, path)
				if err != nil {
					return err
				}
				if d := diffDumps(j, g); d != "" {
					return fmt.Errorf("Java's dump and state differ from Go's (-java +go):\n%s", d)
				}
				return nil
			}})
	}
}

// docTextMalformedUtf8 describes text/malformed-utf8.
const docTextMalformedUtf8 = "Go, through its runner (`write` with the texts' bytes as `stringBytes`, then `compact`), " +
	"writes texts with malformed UTF-8 (cut sequences, invalid bytes, an encoded surrogate, " +
	"an overlong form, a code point past U+10FFFF) and NULs into a Java-written full-text table" +
	" and compacts it: Java reads each text exactly as Go's archive builder decodes it, and " +
	"Java's dump and full-text state equal Go's."
