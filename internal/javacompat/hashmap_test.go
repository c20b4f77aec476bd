package javacompat

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// runOps applies space-separated operations to new maps: P:k put, C:k computeIfAbsent, R:k
// remove, K replaces the map by new HashMap<>(map), A by a new HashMap<>() after putAll(map).
func runOps(t *testing.T, ops string) ([]string, error) {
	t.Helper()
	m := NewHashMap[string]()
	for _, op := range strings.Fields(ops) {
		code, key, _ := strings.Cut(op, ":")
		var err error
		switch code {
		case "P":
			err = m.Put(key, StringHashCode(key))
		case "C":
			err = m.ComputeIfAbsent(key, StringHashCode(key))
		case "R":
			err = m.Remove(key)
		case "K":
			m, err = NewHashMapCopy(m)
		case "A":
			n := NewHashMap[string]()
			err = n.PutAll(m)
			m = n
		default:
			t.Fatalf("bad op %q", op)
		}
		if err != nil {
			return nil, err
		}
	}
	return m.Keys()
}

// The expected orders were printed by OpenJDK 17.0.15: the keySet of a java.util.HashMap<String,
// Integer> after the listed operations (put, computeIfAbsent, remove, copy constructor, putAll
// into a new map). "Aa"/"BB" blocks of equal length share one String hash code.
func TestHashMapOrderMatchesJDK17(t *testing.T) {
	cases := []struct{ ops, java string }{
		{"P:Aa P:BB P:C#",
			"Aa|BB|C#"},
		{"P:Aa P:BB R:Aa P:Aa",
			"BB|Aa"},
		{"C:Aa C:BB C:C#",
			"C#|BB|Aa"},
		{"P:AaAa P:AaBB P:BBAa P:BBBB R:AaBB P:x R:BBAa P:AaBB P:BBAa",
			"x|AaAa|BBBB|AaBB|BBAa"},
		{"P:k1 P:k2 P:k3 P:k4 P:k5 P:k6 P:k7 P:k8 P:k9 P:k10 P:k11 P:k12 P:k13 R:k2 R:k7 P:k2 P:z",
			"k1|k2|k3|k4|k5|k11|k6|k10|k13|k8|k12|k9|z"},
		// computeIfAbsent grows the table before inserting: thirteen keys stay in 16 bins.
		{"C:k1 C:k2 C:k3 C:k4 C:k5 C:k6 C:k7 C:k8 C:k9 C:k10 C:k11 C:k12 C:k13",
			"k1|k2|k3|k4|k11|k5|k10|k6|k13|k7|k12|k8|k9"},
		{"C:k1 C:k2 C:k3 C:k4 C:k5 C:k6 C:k7 C:k8 C:k9 C:k10 C:k11 C:k12 C:k13 C:k1",
			"k1|k2|k3|k4|k11|k5|k10|k6|k13|k7|k12|k8|k9"},
		// The copy constructor pre-sizes three keys to 8 bins.
		{"P:data-a.orc P:data-b.orc P:data-c.orc K",
			"data-b.orc|data-a.orc|data-c.orc"},
		{"P:q P:b P:a P:x1 P:x2 P:x3 P:x4 P:x5 P:x6 P:x7 P:x8 P:x9 P:x10 P:x11 P:x12 K",
			"x8|a|x9|b|q|x10|x12|x1|x11|x2|x3|x4|x5|x6|x7"},
		{"P:x1 P:x2 P:x3 P:x4 P:x5 P:x6 P:x7 P:x8 P:x9 P:x10 P:x11 P:x12 P:x13 P:x14 P:x15 P:x16 P:x17 P:x18 P:x19 P:x20 P:x21 P:x22 P:x23 P:x24 P:x25 A",
			"x8|x9|x10|x12|x11|x14|x13|x16|x15|x18|x17|x19|x21|x20|x23|x1|x22|x2|x25|x3|x24|x4|x5|x6|x7"},
		{"P:AaAaAa P:AaAaBB P:AaBBAa P:AaBBBB P:BBAaAa P:BBAaBB P:BBBBAa P:BBBBBB P:AaAaAaAa P:AaAaAaBB",
			"AaAaAa|AaAaBB|AaBBAa|AaBBBB|BBAaAa|BBAaBB|BBBBAa|BBBBBB|AaAaAaAa|AaAaAaBB"},
		{"P:AaAaAa P:AaAaBB P:AaBBAa P:AaBBBB P:BBAaAa P:BBAaBB P:BBBBAa P:BBBBBB P:AaAaAaAa K",
			"AaAaAa|AaAaBB|AaBBAa|AaBBBB|BBAaAa|BBAaBB|BBBBAa|BBBBBB|AaAaAaAa"},
		// Ten keys in one bin: the ninth and tenth grow the table to 64 bins instead of a tree.
		{"P:AaAaAaAa P:AaAaAaBB P:AaAaBBAa P:AaAaBBBB P:AaBBAaAa P:AaBBAaBB P:AaBBBBAa P:AaBBBBBB P:BBAaAaAa P:BBAaAaBB P:a P:b P:zz",
			"zz|AaAaAaAa|AaAaAaBB|AaAaBBAa|AaAaBBBB|AaBBAaAa|AaBBAaBB|AaBBBBAa|AaBBBBBB|BBAaAaAa|BBAaAaBB|a|b"},
		{"P:a C:AaAaAaAa C:AaAaAaBB C:AaAaBBAa C:AaAaBBBB C:AaBBAaAa C:AaBBAaBB C:AaBBBBAa C:AaBBBBBB C:BBAaAaAa P:b",
			"BBAaAaAa|AaBBBBBB|AaBBBBAa|AaBBAaBB|AaBBAaAa|AaAaBBBB|AaAaBBAa|AaAaAaBB|AaAaAaAa|a|b"},
		{"P:AaAaAaAa P:AaAaAaBB P:AaAaBBAa P:AaAaBBBB P:AaBBAaAa P:AaBBAaBB P:AaBBBBAa P:AaBBBBBB P:BBAaAaAa R:AaAaAaAa P:AaAaAaAa K",
			"AaAaAaBB|AaAaBBAa|AaAaBBBB|AaBBAaAa|AaBBAaBB|AaBBBBAa|AaBBBBBB|BBAaAaAa|AaAaAaAa"},
		{"P:DELETION_VECTORS P:HASH P:pk-full-text",
			"DELETION_VECTORS|pk-full-text|HASH"},
		{"C:pk-full-text C:DELETION_VECTORS",
			"DELETION_VECTORS|pk-full-text"},
	}
	for _, c := range cases {
		got, err := runOps(t, c.ops)
		if err != nil {
			t.Errorf("%s: %v", c.ops, err)
			continue
		}
		if want := strings.Split(c.java, "|"); !slices.Equal(got, want) {
			t.Errorf("%s:\n got  %s\n java %s", c.ops, strings.Join(got, "|"), c.java)
		}
	}
}

func TestHashMapTreeBin(t *testing.T) {
	// Eleven keys with one hash code: at 64 bins the eleventh would make a tree bin.
	keys := []string{"AaAaAaAa", "AaAaAaBB", "AaAaBBAa", "AaAaBBBB", "AaBBAaAa", "AaBBAaBB",
		"AaBBBBAa", "AaBBBBBB", "BBAaAaAa", "BBAaAaBB", "BBAaBBAa"}
	m := NewHashMap[string]()
	var err error
	for _, k := range keys {
		if err = m.Put(k, StringHashCode(k)); err != nil {
			break
		}
	}
	if !errors.Is(err, ErrTreeBin) {
		t.Fatalf("err = %v, want ErrTreeBin", err)
	}
	if _, err := m.Keys(); !errors.Is(err, ErrTreeBin) {
		t.Errorf("Keys after a tree bin: %v", err)
	}
	if err := m.Remove(keys[0]); !errors.Is(err, ErrTreeBin) {
		t.Errorf("Remove after a tree bin: %v", err)
	}
}

func TestHashMapBasics(t *testing.T) {
	m := NewHashMap[int32]()
	if m.Capacity() != 0 {
		t.Errorf("capacity before the first put: %d", m.Capacity())
	}
	for i := int32(0); i < 13; i++ {
		if err := m.Put(i, i); err != nil {
			t.Fatal(err)
		}
	}
	if m.Capacity() != 32 || m.Len() != 13 || !m.Contains(12) || m.Contains(13) {
		t.Errorf("capacity %d len %d", m.Capacity(), m.Len())
	}
	if err := m.Remove(3); err != nil || m.Len() != 12 || m.Capacity() != 32 {
		t.Errorf("remove: err %v len %d capacity %d", err, m.Len(), m.Capacity())
	}
	if err := m.Remove(99); err != nil {
		t.Errorf("removing an absent key: %v", err)
	}
	for _, c := range []struct{ in, out int }{{0, 1}, {1, 1}, {2, 2}, {5, 8}, {16, 16}, {17, 32}} {
		if got := tableSizeFor(c.in); got != c.out {
			t.Errorf("tableSizeFor(%d) = %d, want %d", c.in, got, c.out)
		}
	}
}
