package tableops_test

import (
	"context"
	"errors"
	"testing"

	"github.com/paimon-pkft/pkft/internal/fileio"
	"github.com/paimon-pkft/pkft/internal/inspect"
	"github.com/paimon-pkft/pkft/internal/table"
	"github.com/paimon-pkft/pkft/internal/tableops"
	"github.com/paimon-pkft/pkft/internal/testing/faultio"
)

// A publication that lands but reports an error (a link+unlink publication whose unlink failed)
// must not make the rewrite delete the manifests the published snapshot references.
func TestRewriteMetadataSnapshotLandsDespiteAnError(t *testing.T) {
	ctx := context.Background()
	root := copyTable(t, "pk-partitioned")
	counter := faultio.New(fileio.NewLocal())
	probe := copyTable(t, "pk-partitioned")
	if _, err := tableops.RewriteMetadata(ctx, table.Open(counter, probe), "u"); err != nil {
		t.Fatal(err)
	}
	// The snapshot is the last file created before the LATEST hint: publications are
	// manifests..., lists, index manifest, snapshot, LATEST.
	snapshotPublish := counter.Counts().Of(faultio.OpRename) - 1
	f := faultio.New(fileio.NewLocal())
	f.Arm(faultio.Point{Op: faultio.OpRename, K: snapshotPublish, Mode: faultio.FailAfter})
	snap, err := tableops.RewriteMetadata(ctx, table.Open(f, root), "u")
	if err != nil {
		t.Fatalf("rewrite whose snapshot landed: %v", err)
	}
	if !f.Fired() {
		t.Fatal("fault not injected")
	}
	tbl := table.Open(fileio.NewLocal(), root)
	d, err := inspect.TableDump(ctx, tbl, nil)
	if err != nil {
		t.Fatalf("table does not read after the rewrite: %v", err)
	}
	if d.SnapshotID != snap.ID {
		t.Errorf("latest snapshot %d, want %d", d.SnapshotID, snap.ID)
	}
}

// A manifest whose publication reports an error is deleted with the rest when the rewrite fails.
func TestRewriteMetadataDeletesAManifestPublishedWithAnError(t *testing.T) {
	ctx := context.Background()
	root := copyTable(t, "pk-partitioned")
	before := listNames(t, root+"/manifest")
	f := faultio.New(fileio.NewLocal())
	f.Arm(faultio.Point{Op: faultio.OpRename, K: 2, Mode: faultio.FailAfter})
	if _, err := tableops.RewriteMetadata(ctx, table.Open(f, root), "u"); !errors.Is(err, faultio.ErrInjected) {
		t.Fatalf("rewrite: %v, want the injected failure", err)
	}
	if got := listNames(t, root+"/manifest"); len(got) != len(before) {
		t.Errorf("manifest directory has %d files, want %d: %v", len(got), len(before), got)
	}
}
