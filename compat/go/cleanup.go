package main

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/paimon-pkft/pkft"
)

// expireArgs are expire-snapshots' arguments, as the Java runner's ExpireCommands takes them; an
// absent limit is the table's option.
type expireArgs struct {
	Path            string `json:"path"`
	RetainMax       *int   `json:"retainMax"`
	RetainMin       *int   `json:"retainMin"`
	MaxDeletes      *int   `json:"maxDeletes"`
	OlderThanMillis *int64 `json:"olderThanMillis"`
}

// cmdExpireSnapshots expires snapshots with Table.ExpireSnapshots: retainMax, retainMin and
// maxDeletes as WithRetainMax, WithRetainMin and WithMaxDeletes, olderThanMillis (epoch
// milliseconds) as WithOlderThan. Result: {deleted}, the number of snapshots expired.
func cmdExpireSnapshots(ctx context.Context, raw json.RawMessage) (any, error) {
	var args expireArgs
	if err := decodeArgs(raw, &args); err != nil {
		return nil, err
	}
	var opts []pkft.ExpireOption
	if args.RetainMax != nil {
		opts = append(opts, pkft.WithRetainMax(*args.RetainMax))
	}
	if args.RetainMin != nil {
		opts = append(opts, pkft.WithRetainMin(*args.RetainMin))
	}
	if args.MaxDeletes != nil {
		opts = append(opts, pkft.WithMaxDeletes(*args.MaxDeletes))
	}
	if args.OlderThanMillis != nil {
		opts = append(opts, pkft.WithOlderThan(time.UnixMilli(*args.OlderThanMillis)))
	}
	t, err := openTable(ctx, args.Path)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	res, err := t.ExpireSnapshots(ctx, opts...)
	if err != nil {
		return nil, err
	}
	return map[string]any{"deleted": res.Expired}, nil
}

// orphanArgs are remove-orphan-files' arguments, as the Java runner's OrphanCommands takes them.
type orphanArgs struct {
	Path            string `json:"path"`
	OlderThanMillis *int64 `json:"olderThanMillis"`
	DryRun          bool   `json:"dryRun"`
}

// cmdRemoveOrphanFiles removes (or, with dryRun, lists) the files no snapshot, tag or branch
// references and older than olderThanMillis (epoch milliseconds, required) with
// Table.RemoveOrphanFiles. Result: {deleted (paths relative to the table, sorted), deletedBytes,
// deletedCount}.
func cmdRemoveOrphanFiles(ctx context.Context, raw json.RawMessage) (any, error) {
	var args orphanArgs
	if err := decodeArgs(raw, &args); err != nil {
		return nil, err
	}
	if args.OlderThanMillis == nil {
		return nil, argErrorf("args.olderThanMillis (epoch milliseconds) is required")
	}
	t, err := openTable(ctx, args.Path)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	res, err := t.RemoveOrphanFiles(ctx, pkft.WithOlderThan(time.UnixMilli(*args.OlderThanMillis)), pkft.WithDryRun(args.DryRun))
	if err != nil {
		return nil, err
	}
	deleted := make([]string, 0, len(res.Deleted))
	for _, f := range res.Deleted {
		deleted = append(deleted, f.Path)
	}
	slices.Sort(deleted)
	return map[string]any{"deleted": deleted, "deletedBytes": res.DeletedBytes, "deletedCount": len(deleted)}, nil
}
