package pkft_test

import (
	"errors"
	"testing"

	"github.com/paimon-pkft/pkft"
)

// TestOperationConflictErrors: each operation's named conflict error is its own (a caller can
// tell a write conflict from a compaction conflict) and matches ErrCommitConflict.
func TestOperationConflictErrors(t *testing.T) {
	named := map[string]error{
		"maintain": pkft.ErrMaintainConflict,
		"write":    pkft.ErrWriteConflict,
		"compact":  pkft.ErrCompactConflict,
		"rewrite":  pkft.ErrRewriteConflict,
	}
	for op, err := range named {
		if !errors.Is(err, pkft.ErrCommitConflict) {
			t.Errorf("%s: %v does not match ErrCommitConflict", op, err)
		}
		for other, otherErr := range named {
			if other != op && errors.Is(err, otherErr) {
				t.Errorf("%s conflict %v matches the %s conflict", op, err, other)
			}
		}
	}
	if pkft.ErrSnapshotReplaced == nil || pkft.ErrSnapshotReplaced == pkft.ErrCommitConflict {
		t.Fatalf("ErrSnapshotReplaced is not an error of its own: %v", pkft.ErrSnapshotReplaced)
	}
}
