package dv

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestJavaOrderMatchesJDK17 checks JavaOrder against orders a JVM printed (see the source field
// of the test data).
func TestJavaOrderMatchesJDK17(t *testing.T) {
	b, err := os.ReadFile("testdata/java_maintainer_order.json")
	if err != nil {
		t.Fatal(err)
	}
	var data struct {
		Cases []struct {
			Files   [][]string `json:"files"`
			Removed []string   `json:"removed"`
			Java    []string   `json:"java"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(b, &data); err != nil {
		t.Fatal(err)
	}
	if len(data.Cases) == 0 {
		t.Fatal("no cases")
	}
	differsFromSorted := 0
	for i, c := range data.Cases {
		live := map[string]DeletionVector{}
		for _, f := range c.Files {
			for _, name := range f {
				live[name] = NewBitmap32()
			}
		}
		for _, name := range c.Removed {
			delete(live, name)
		}
		got := JavaOrder(c.Files, live)
		if !slices.Equal(got, c.Java) {
			t.Errorf("case %d:\n got  %s\n java %s", i, strings.Join(got, " "), strings.Join(c.Java, " "))
		}
		if !slices.IsSorted(c.Java) {
			differsFromSorted++
		}
	}
	if differsFromSorted == 0 {
		t.Error("every recorded Java order is name order; the cases do not discriminate")
	}
}

func TestJavaOrderNewNamesAndEmpty(t *testing.T) {
	if got := JavaOrder(nil, nil); len(got) != 0 {
		t.Errorf("empty: %v", got)
	}
	// Without restored files the names are put into a new HashMap in name order: "Aa" and "BB"
	// share bin 0 and keep put order within it; "b" is in bin 2.
	live := map[string]DeletionVector{"BB": NewBitmap32(), "Aa": NewBitmap32(), "b": NewBitmap32()}
	if got, want := JavaOrder(nil, live), []string{"Aa", "BB", "b"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
