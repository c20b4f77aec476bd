package differential

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Script is one scenario for the maintainer (see the package documentation for its meaning).
type Script struct {
	// Seed is the generator seed the script came from; informational.
	Seed int64 `json:"seed"`
	// Family selects the maintainer: FamilyFullText (absent) for the full-text maintainer, or
	// the index type of a sorted definition (FamilyBTree, FamilyBitmap) for the sorted one.
	Family string `json:"family,omitempty"`
	// FieldID is the indexed text field id.
	FieldID int32 `json:"fieldId"`
	// Restore is what the maintainer is constructed from.
	Restore Restore `json:"restore"`
	// Steps run in order after the restore; close follows the last.
	Steps []Step `json:"steps"`
}

// Restore lists the restored data files and payloads, in the order they are passed.
type Restore struct {
	DataFiles []DataFile `json:"dataFiles"`
	Payloads  []Payload  `json:"payloads"`
}

// DataFile describes one DataFileMeta.
type DataFile struct {
	Name   string `json:"name"`
	Level  int32  `json:"level"`
	Rows   int64  `json:"rows"`
	Source Source `json:"source"`
}

// The maintainer families a script can drive.
const (
	FamilyFullText = ""
	FamilyBTree    = "btree"
	FamilyBitmap   = "bitmap"
)

// sorted reports whether the script drives the sorted family's maintainer.
func (s Script) sorted() bool { return s.Family != FamilyFullText }

// Source is a data file's file source.
type Source string

// File sources; SourceNone is Java's null.
const (
	SourceAppend  Source = "APPEND"
	SourceCompact Source = "COMPACT"
	SourceNone    Source = ""
)

// SourceFile is one entry of a payload's source meta.
type SourceFile struct {
	Name string `json:"name"`
	Rows int64  `json:"rows"`
}

// Payload describes one restored index file: a full-text archive over Files on Level, possibly
// corrupted.
type Payload struct {
	Name    string       `json:"name"`
	Level   int32        `json:"level"`
	Files   []SourceFile `json:"files"`
	Corrupt []Corruption `json:"corrupt,omitempty"`
}

// Corruption alters a restored payload (see the package documentation).
type Corruption string

// Corruption tags.
const (
	CorruptRowCount         Corruption = "rowCount"
	CorruptRowRange         Corruption = "rowRange"
	CorruptOtherField       Corruption = "otherField"
	CorruptOtherFieldNoMeta Corruption = "otherFieldNoMeta"
	CorruptUnparsable       Corruption = "unparsableMeta"
	CorruptTrailingBytes    Corruption = "trailingBytes"
	CorruptNoGlobalMeta     Corruption = "noGlobalMeta"
	CorruptOtherType        Corruption = "otherType"
	CorruptDuplicate        Corruption = "duplicate"
)

var corruptions = []Corruption{
	CorruptRowCount, CorruptRowRange, CorruptOtherField, CorruptOtherFieldNoMeta, CorruptUnparsable,
	CorruptTrailingBytes, CorruptNoGlobalMeta, CorruptOtherType, CorruptDuplicate,
}

// Op is what a step does.
type Op string

// Step operations.
const (
	OpPrepareCommit Op = "prepareCommit"
	OpAbort         Op = "abort"
)

// Step is one call on the maintainer.
type Step struct {
	Op Op `json:"op"`
	// Append is the append increment's new files (prepareCommit).
	Append []DataFile `json:"append,omitempty"`
	// CompactBefore names the files the compaction removed (prepareCommit).
	CompactBefore []string `json:"compactBefore,omitempty"`
	// CompactAfter are the files the compaction produced or re-levelled (prepareCommit).
	CompactAfter []DataFile `json:"compactAfter,omitempty"`
	// Wait is waitCompaction (prepareCommit).
	Wait bool `json:"wait,omitempty"`
	// Builds are the outcomes of the builds requested during the step, in request order.
	Builds []Outcome `json:"builds,omitempty"`
	// NoBuildStart is allowBuildStart = false (prepareCommit of the sorted family only).
	NoBuildStart bool `json:"noBuildStart,omitempty"`
}

// HasCompactTransition reports whether the step's compact increment moves data files, which
// routes its index changes to the compact increment.
func (s Step) HasCompactTransition() bool {
	return len(s.CompactBefore) > 0 || len(s.CompactAfter) > 0
}

// Outcome is what the deterministic builder does with one build request.
type Outcome string

// Build outcomes (see the package documentation).
const (
	Succeed     Outcome = "succeed"
	Fail        Outcome = "fail"
	WrongField  Outcome = "wrongField"
	WrongRows   Outcome = "wrongRows"
	FinishLater Outcome = "finishLater"
	FailLater   Outcome = "failLater"
	// FailOnce and WrongLevel exist in sorted-family scripts only.
	FailOnce   Outcome = "failOnce"
	WrongLevel Outcome = "wrongLevel"
)

// later reports whether the outcome completes only at the next step.
func (o Outcome) later() bool { return o == FinishLater || o == FailLater }

// generates reports whether the outcome produces an archive.
func (o Outcome) generates() bool { return o != Fail && o != FailLater }

var outcomes = []Outcome{Succeed, Fail, WrongField, WrongRows, FinishLater, FailLater}

// sortedOnlyOutcomes are the outcomes only sorted-family scripts use.
var sortedOnlyOutcomes = []Outcome{FailOnce, WrongLevel}

// failsAttempt reports whether attempt (from 1) of a sorted-family build with outcome o fails.
func (o Outcome) failsAttempt(attempt int) bool {
	return o == Fail || o == FailLater || (o == FailOnce && attempt == 1)
}

// builtPrefix starts every name the deterministic builder generates; restored payloads may not
// use it, so a name tells which side it came from.
const builtPrefix = "ft-L"

// Validate reports what makes s impossible to execute identically on both sides.
func (s Script) Validate() error {
	var errs []error
	switch s.Family {
	case FamilyFullText, FamilyBTree, FamilyBitmap:
	default:
		errs = append(errs, fmt.Errorf("unknown family %q", s.Family))
	}
	checkFile := func(where string, f DataFile) {
		if f.Name == "" {
			errs = append(errs, fmt.Errorf("%s: data file without a name", where))
		}
		if f.Rows < 0 {
			errs = append(errs, fmt.Errorf("%s: data file %s has negative rows", where, f.Name))
		}
		if f.Source != SourceAppend && f.Source != SourceCompact && f.Source != SourceNone {
			errs = append(errs, fmt.Errorf("%s: data file %s has unknown source %q", where, f.Name, f.Source))
		}
	}
	for i, f := range s.Restore.DataFiles {
		checkFile(fmt.Sprintf("restore data file %d", i), f)
	}
	names := map[string]bool{}
	for i, p := range s.Restore.Payloads {
		where := fmt.Sprintf("restore payload %d", i)
		switch {
		case p.Name == "":
			errs = append(errs, fmt.Errorf("%s: no name", where))
		case strings.HasPrefix(p.Name, builtPrefix):
			errs = append(errs, fmt.Errorf("%s: name %s uses the builder's prefix %s", where, p.Name, builtPrefix))
		case names[p.Name]:
			errs = append(errs, fmt.Errorf("%s: name %s repeated (use the duplicate tag)", where, p.Name))
		}
		names[p.Name] = true
		for _, f := range p.Files {
			if f.Rows < 0 {
				errs = append(errs, fmt.Errorf("%s: source %s has negative rows", where, f.Name))
			}
		}
		for _, c := range p.Corrupt {
			if !slices.Contains(corruptions, c) {
				errs = append(errs, fmt.Errorf("%s: unknown corruption %q", where, c))
			}
		}
	}
	for i, st := range s.Steps {
		where := fmt.Sprintf("step %d", i)
		switch st.Op {
		case OpPrepareCommit:
			for _, f := range st.Append {
				checkFile(where+" append", f)
			}
			for _, f := range st.CompactAfter {
				checkFile(where+" compactAfter", f)
			}
			if st.NoBuildStart && !s.sorted() {
				errs = append(errs, fmt.Errorf("%s: noBuildStart in a full-text script", where))
			}
			for _, o := range st.Builds {
				switch {
				case slices.Contains(sortedOnlyOutcomes, o) && !s.sorted():
					errs = append(errs, fmt.Errorf("%s: outcome %s in a full-text script", where, o))
				case !slices.Contains(outcomes, o) && !slices.Contains(sortedOnlyOutcomes, o):
					errs = append(errs, fmt.Errorf("%s: unknown build outcome %q", where, o))
				case o.later() && st.Wait:
					errs = append(errs, fmt.Errorf("%s: outcome %s in a waiting step", where, o))
				}
			}
		case OpAbort:
			if len(st.Append) > 0 || len(st.CompactBefore) > 0 || len(st.CompactAfter) > 0 || st.Wait || len(st.Builds) > 0 || st.NoBuildStart {
				errs = append(errs, fmt.Errorf("%s: abort takes no arguments", where))
			}
		default:
			errs = append(errs, fmt.Errorf("%s: unknown op %q", where, st.Op))
		}
	}
	return errors.Join(errs...)
}

// JSON returns the script as indented JSON, for failure reports.
func (s Script) JSON() string {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Sprintf("<unencodable script: %v>", err)
	}
	return string(b)
}
