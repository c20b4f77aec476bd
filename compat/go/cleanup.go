package main

import (
	"context"
	"slices"
	"time"

	"github.com/paimon-pkft/pkft"
	"github.com/paimon-pkft/pkft/compat/protocol"
)

// cmdExpireSnapshots expires snapshots with Table.ExpireSnapshots: retainMax, retainMin and
// maxDeletes as WithRetainMax, WithRetainMin and WithMaxDeletes, olderThanMillis (epoch
// milliseconds) as WithOlderThan. Result: {deleted}, the number of snapshots expired.
func cmdExpireSnapshots(ctx context.Context, args protocol.ExpireSnapshotsRequest) (protocol.ExpireSnapshotsResponse, error) {
	var none protocol.ExpireSnapshotsResponse
	var opts []pkft.ExpireOption
	if args.RetainMax != nil {
		opts = append(opts, pkft.WithRetainMax(int(*args.RetainMax)))
	}
	if args.RetainMin != nil {
		opts = append(opts, pkft.WithRetainMin(int(*args.RetainMin)))
	}
	if args.MaxDeletes != nil {
		opts = append(opts, pkft.WithMaxDeletes(int(*args.MaxDeletes)))
	}
	if args.OlderThanMillis != nil {
		opts = append(opts, pkft.WithOlderThan(time.UnixMilli(*args.OlderThanMillis)))
	}
	t, err := openTable(ctx, args.Path)
	if err != nil {
		return none, err
	}
	defer t.Close()
	res, err := t.ExpireSnapshots(ctx, opts...)
	if err != nil {
		return none, err
	}
	return protocol.ExpireSnapshotsResponse{Deleted: int64(res.Expired)}, nil
}

// cmdRemoveOrphanFiles removes (or, with dryRun, lists) the files no snapshot, tag or branch
// references and older than olderThanMillis (epoch milliseconds, required) with
// Table.RemoveOrphanFiles. Result: {deleted (paths relative to the table, sorted), deletedBytes,
// deletedCount}.
func cmdRemoveOrphanFiles(ctx context.Context, args protocol.RemoveOrphanFilesRequest) (protocol.RemoveOrphanFilesResponse, error) {
	var none protocol.RemoveOrphanFilesResponse
	t, err := openTable(ctx, args.Path)
	if err != nil {
		return none, err
	}
	defer t.Close()
	res, err := t.RemoveOrphanFiles(ctx, pkft.WithOlderThan(time.UnixMilli(args.OlderThanMillis)), pkft.WithDryRun(args.DryRun != nil && *args.DryRun))
	if err != nil {
		return none, err
	}
	deleted := make([]string, 0, len(res.Deleted))
	for _, f := range res.Deleted {
		deleted = append(deleted, f.Path)
	}
	slices.Sort(deleted)
	return protocol.RemoveOrphanFilesResponse{Deleted: deleted, DeletedBytes: res.DeletedBytes, DeletedCount: int64(len(deleted))}, nil
}
