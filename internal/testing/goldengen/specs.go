package goldengen

import "fmt"

// Specs returns the golden tables make golden writes through pypaimon.
func Specs() []Spec {
	return []Spec{unpartitioned(), partitioned(), decimalTimestampKey()}
}

// unpartitioned: one bucket, three commits that update and null out earlier rows.
func unpartitioned() Spec {
	row := func(id int, name string, score int, text any) map[string]any {
		return map[string]any{"id": id, "name": name, "score": score, "text": text}
	}
	return Spec{
		Name: "pk-unpartitioned",
		Fields: []Field{{"id", "BIGINT"}, {"name", "STRING"}, {"score", "INT"},
			{"text", "STRING"}},
		PrimaryKeys: []string{"id"},
		Options:     map[string]string{"bucket": "1", "file.format": "parquet"},
		Commits: []Commit{
			{Rows: []map[string]any{row(1, "ann", 10, "the quick brown fox"), row(2, "bob", 20, "jumps over"),
				row(3, "cid", 30, "the lazy dog"), row(4, "dee", 40, "快速的棕色狐狸"), row(5, "eve", 50, nil),
				row(6, "fay", 60, "émigré café")}},
			{Rows: []map[string]any{row(2, "bob", 21, "jumps over again"), row(4, "dee", 41, "懒狗"),
				row(7, "gus", 70, "a new row")}},
			{Rows: []map[string]any{row(1, "ann", 11, nil), row(7, "gus", 71, "updated 🦊"), row(8, "hal", 80, "last")}},
		},
	}
}

// partitioned: partitioned by a STRING (one inline value, one in the variable part) and a
// DATE, two buckets; updates, a new partition, and a final commit overwriting one partition.
func partitioned() Spec {
	rows := func(region, day, tag string, ids ...int) []map[string]any {
		var out []map[string]any
		for _, id := range ids {
			out = append(out, map[string]any{"region": region, "day": day, "id": id,
				"text": fmt.Sprintf("%s %s row %d %s", region, day, id, tag)})
		}
		return out
	}
	concat := func(parts ...[]map[string]any) []map[string]any {
		var out []map[string]any
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	return Spec{
		Name:          "pk-partitioned",
		Fields:        []Field{{"region", "STRING"}, {"day", "DATE"}, {"id", "INT"}, {"text", "STRING"}},
		PrimaryKeys:   []string{"region", "day", "id"},
		PartitionKeys: []string{"region", "day"},
		Options:       map[string]string{"bucket": "2"},
		Commits: []Commit{
			{Rows: concat(rows("eu-central", "2024-03-01", "v1", 1, 2, 3, 4, 5, 6), rows("us", "2024-03-01", "v1", 1, 2, 3, 4))},
			{Rows: concat(rows("eu-central", "2024-03-01", "v2", 2, 3), rows("eu-central", "2024-03-02", "v1", 1, 2, 3),
				rows("us", "2024-03-01", "v2", 5))},
			{Rows: rows("eu-central", "2024-03-02", "v2", 1, 4)},
			{Rows: rows("us", "2024-03-01", "v3", 10, 11, 12),
				Overwrite: map[string]any{"region": "us", "day": "2024-03-01"}},
		},
	}
}

// decimalTimestampKey: a composite primary key of INT, DECIMAL(10, 2) and TIMESTAMP(3), two
// buckets, so bucket hashing and key statistics cover both types (negative and pre-epoch values
// included).
func decimalTimestampKey() Spec {
	row := func(id int, price, ts string, text any) map[string]any {
		return map[string]any{"id": id, "price": price, "ts": ts, "text": text}
	}
	return Spec{
		Name: "pk-decimal-timestamp",
		Fields: []Field{{"id", "INT"}, {"price", "DECIMAL(10, 2)"}, {"ts", "TIMESTAMP(3)"},
			{"text", "STRING"}},
		PrimaryKeys: []string{"id", "price", "ts"},
		Options:     map[string]string{"bucket": "2"},
		Commits: []Commit{
			{Rows: []map[string]any{
				row(1, "9.99", "2024-05-01T10:00:00.123", "first"),
				row(1, "19.99", "2024-05-01T10:00:00.123", "same id, other price"),
				row(2, "-3.50", "1969-12-31T23:59:59.500", "negative price, before the epoch"),
				row(3, "12345678.90", "2024-05-02T00:00:00", "large price"),
				row(4, "0.01", "2038-01-19T03:14:08.001", nil),
			}},
			{Rows: []map[string]any{
				row(1, "9.99", "2024-05-01T10:00:00.123", "first, updated"),
				row(3, "12345678.90", "2024-05-02T00:00:00.001", "one millisecond later: a new key"),
				row(5, "100.00", "2024-05-03T12:30:45.999", "fifth"),
			}},
		},
	}
}
