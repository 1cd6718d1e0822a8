package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/fjkit/fjkit/forkjoin"
)

// Counters are a pool's scheduling counters over one timed run, a copy of
// forkjoin.Stats less the worker count. Every piece of code that lists them
// (the CSV columns, the JSON object, the medians, the copy from the pool)
// reads counterFields, so that a counter is added in one place.
type Counters struct {
	Tasks, Steals, Stolen, StealAttempts, LockWaits, Parks, Wakeups uint64
}

// counterField is one counter: its name in CSV and JSON, where it lives in
// Counters and where it comes from in forkjoin.Stats.
type counterField struct {
	name string
	in   func(*Counters) *uint64
	from func(*forkjoin.Stats) uint64
}

// counterFields lists the counters in the order of the CSV columns and the
// JSON keys.
var counterFields = []counterField{
	{"tasks", func(c *Counters) *uint64 { return &c.Tasks }, func(s *forkjoin.Stats) uint64 { return s.Tasks }},
	{"steals", func(c *Counters) *uint64 { return &c.Steals }, func(s *forkjoin.Stats) uint64 { return s.Steals }},
	{"stolen", func(c *Counters) *uint64 { return &c.Stolen }, func(s *forkjoin.Stats) uint64 { return s.Stolen }},
	{"steal_attempts", func(c *Counters) *uint64 { return &c.StealAttempts }, func(s *forkjoin.Stats) uint64 { return s.StealAttempts }},
	{"lock_waits", func(c *Counters) *uint64 { return &c.LockWaits }, func(s *forkjoin.Stats) uint64 { return s.LockWaits }},
	{"parks", func(c *Counters) *uint64 { return &c.Parks }, func(s *forkjoin.Stats) uint64 { return s.Parks }},
	{"wakeups", func(c *Counters) *uint64 { return &c.Wakeups }, func(s *forkjoin.Stats) uint64 { return s.Wakeups }},
}

// countersOf copies a pool's counters.
func countersOf(s forkjoin.Stats) Counters {
	var c Counters
	for _, f := range counterFields {
		*f.in(&c) = f.from(&s)
	}
	return c
}

// counterNames are the CSV column names of the counters.
func counterNames() []string {
	out := make([]string, len(counterFields))
	for i, f := range counterFields {
		out[i] = f.name
	}
	return out
}

// cells formats the counters as CSV cells in counterFields order.
func (c Counters) cells() []string {
	out := make([]string, len(counterFields))
	for i, f := range counterFields {
		out[i] = strconv.FormatUint(*f.in(&c), 10)
	}
	return out
}

// medianCounters takes each counter's median over the runs, so that one run
// that happened to steal a lot does not stand for the others.
func medianCounters(cs []Counters) (Counters, bool) {
	if len(cs) == 0 {
		return Counters{}, false
	}
	var m Counters
	xs := make([]float64, len(cs))
	for _, f := range counterFields {
		for i := range cs {
			xs[i] = float64(*f.in(&cs[i]))
		}
		slices.Sort(xs)
		*f.in(&m) = uint64(median(xs))
	}
	return m, true
}

// jsonCounters is Counters as a JSON object with counterFields' keys, in
// their order (a map would sort them).
type jsonCounters Counters

func (jc jsonCounters) MarshalJSON() ([]byte, error) {
	c := Counters(jc)
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range counterFields {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(f.name) + ":" + strconv.FormatUint(*f.in(&c), 10))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func (jc *jsonCounters) UnmarshalJSON(data []byte) error {
	var m map[string]uint64
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	c := (*Counters)(jc)
	for _, f := range counterFields {
		*f.in(c) = m[f.name]
	}
	return nil
}
