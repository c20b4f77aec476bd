package differential

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/paimon-pkft/pkft/internal/javaio"
	"github.com/paimon-pkft/pkft/internal/meta"
	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/pkindex"
)

// maintainerState reads the state a trace records. Current payloads and the pending flag come
// from the public API. The retired payloads and the active source files have no accessor (Java's
// runner reads its private fields the same way), so they are read by reflection from the
// unexported fields retired ([]*meta.IndexFileMeta) and active (map[string]*meta.DataFileMeta);
// a rename there fails loudly here. The caller must hold no concurrent call on m.
func maintainerState(m *pkfulltext.Maintainer) (State, error) {
	st := State{BuildPending: m.BuildNotCompleted(), Current: []PayloadRef{}, Retired: []string{}, Active: []DataFile{}}
	for _, p := range m.Payloads() {
		ref := PayloadRef{Name: p.FileName}
		if p.GlobalIndex != nil {
			if sm, err := pkindex.DecodeSourceMeta(p.GlobalIndex.SourceMeta); err == nil {
				ref.Level = sm.DataLevel()
			}
		}
		st.Current = append(st.Current, ref)
	}

	v := reflect.ValueOf(m).Elem()
	retired := v.FieldByName("retired")
	if retired.Kind() != reflect.Slice || retired.Type().Elem() != reflect.TypeFor[*meta.IndexFileMeta]() {
		return State{}, fmt.Errorf("read maintainer state: field retired is %v, want []*meta.IndexFileMeta", retired.Kind())
	}
	for i := range retired.Len() {
		st.Retired = append(st.Retired, retired.Index(i).Elem().FieldByName("FileName").String())
	}
	active := v.FieldByName("active")
	if active.Kind() != reflect.Map || active.Type().Elem() != reflect.TypeFor[*meta.DataFileMeta]() {
		return State{}, fmt.Errorf("read maintainer state: field active is %v, want map[string]*meta.DataFileMeta", active.Kind())
	}
	for it := active.MapRange(); it.Next(); {
		f := it.Value().Elem()
		df := DataFile{
			Name:  f.FieldByName("FileName").String(),
			Level: int32(f.FieldByName("Level").Int()),
			Rows:  f.FieldByName("RowCount").Int(),
		}
		if src := f.FieldByName("FileSource"); !src.IsNil() {
			df.Source = Source(meta.FileSource(src.Elem().Int()).String())
		}
		st.Active = append(st.Active, df)
	}
	sortFiles(st.Active)
	return st, nil
}

// sortFiles orders files by name as Java's String.compareTo does.
func sortFiles(files []DataFile) {
	slices.SortFunc(files, func(a, b DataFile) int {
		if c := javaio.CompareJava(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(string(a.Source), string(b.Source))
	})
}
