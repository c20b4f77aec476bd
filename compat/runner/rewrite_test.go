package runner

import (
	"context"
	"fmt"

	"github.com/google/go-cmp/cmp"

	"github.com/paimon-pkft/pkft/internal/testing/goldengen"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

// casesRewrite registers table/metadata-rewrite (go->pypaimon): Go re-encodes a pypaimon-written table's metadata and commits it; pypaimon must
// read the new snapshot with the same rows and the same live files.
func casesRewrite(ct *caseTable) {
	impls, runners := consumerRunners(ct)
	for _, impl := range producerImpls(impls, Maintainer) {
		ct.add(caseRow{Name: "table/metadata-rewrite", Direction: as(impl, "go->pypaimon"), Doc: docTableMetadataRewrite,
			Sides: []caseSide{side("pypaimon", Writer, Consumer), side(impl, Maintainer)},
			Uses:  []caseUse{runnerOf(runners, impl, "rewrite-metadata")},
			Run: func(ctx context.Context, ce *caseEnv) error {
				p, err := StartPypaimon(ctx)
				if err != nil {
					return unavailable{testenv.RequirePypaimonEnv, err}
				}
				defer p.Close()
				path, err := goldengen.CreateAndWrite(ctx, p, ce.T.TempDir(), "conformance", pypaimonReadSpec())
				if err != nil {
					return err
				}
				before, err := pypaimonFiles(ctx, p, path)
				if err != nil {
					return err
				}
				var rowsBefore, rowsAfter struct {
					Rows []map[string]any `json:"rows"`
				}
				if err := p.Call(ctx, "read", map[string]any{"path": path}, &rowsBefore); err != nil {
					return err
				}
				var snap rewriteAnswer
				if err := ce.runner(impl).Call(ctx, "rewrite-metadata", map[string]any{"path": path}, &snap); err != nil {
					return fmt.Errorf("rewrite: %w", err)
				}
				after, err := pypaimonFiles(ctx, p, path)
				if err != nil {
					return fmt.Errorf("pypaimon reading Go's snapshot: %w", err)
				}
				if after.SnapshotID != snap.SnapshotAfter || after.SnapshotID != before.SnapshotID+1 || after.CommitKind != "COMPACT" {
					return fmt.Errorf("pypaimon sees snapshot %d (%s) after %d, want Go's %d (COMPACT), the next", after.SnapshotID, after.CommitKind, before.SnapshotID, snap.SnapshotAfter)
				}
				b, err := before.Canonical()
				if err != nil {
					return err
				}
				a, err := after.Canonical()
				if err != nil {
					return err
				}
				b.SnapshotID, b.CommitKind = a.SnapshotID, a.CommitKind
				if d := cmp.Diff(b, a); d != "" {
					return fmt.Errorf("live files changed across the rewrite (-before +after):\n%s", d)
				}
				if err := p.Call(ctx, "read", map[string]any{"path": path}, &rowsAfter); err != nil {
					return err
				}
				if len(rowsBefore.Rows) == 0 {
					return fmt.Errorf("the table has no rows: nothing compared")
				}
				if d := cmp.Diff(rowsBefore.Rows, rowsAfter.Rows); d != "" {
					return fmt.Errorf("rows changed across the rewrite (-before +after):\n%s", d)
				}
				return nil
			}})
	}
}
