package workload

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/leasesim/leasesim/sim"
)

// Writer writes a workload in the format Reader reads. It checks each
// event with the same rules as the Reader, so whatever it writes reads
// back equal. Call Flush at the end.
type Writer struct {
	buf    *bufio.Writer
	enc    *json.Encoder
	header Header
	line   int
	prev   time.Duration
	err    error
}

// NewWriter checks h and writes it as the header line. A zero h.Version
// means Version.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	if h.Version == 0 {
		h.Version = Version
	}
	if err := checkHeader(h); err != nil {
		return nil, err.at(1, "header")
	}
	buf := bufio.NewWriter(w)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	wr := &Writer{buf: buf, enc: enc, header: h, line: 1}
	if err := enc.Encode(headerWire(h)); err != nil {
		return nil, fmt.Errorf("workload: writing the header: %w", err)
	}
	return wr, nil
}

// Write checks e and writes it as the next line. Events must come in
// non-decreasing At order. A rejected event is a *LineError naming the
// line it would have had; a write error is sticky.
func (w *Writer) Write(e Event) error {
	if w.err != nil {
		return w.err
	}
	ferr := checkEvent(e, w.header)
	if ferr == nil && e.At < w.prev {
		ferr = badf("at", "%v is before %v, the time of the previous event: events must come in time order", e.At, w.prev)
	}
	if ferr != nil {
		return ferr.at(w.line+1, e.subject())
	}
	if err := w.enc.Encode(eventWire(e)); err != nil {
		w.err = fmt.Errorf("workload: writing line %d: %w", w.line+1, err)
		return w.err
	}
	w.line++
	w.prev = e.At
	return nil
}

// Flush writes any buffered data to the underlying writer.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	if err := w.buf.Flush(); err != nil {
		w.err = fmt.Errorf("workload: writing: %w", err)
	}
	return w.err
}

// Lines returns how many lines have been written, the header included.
func (w *Writer) Lines() int { return w.line }

// The wire forms. Field order is the order of the fields here; durations
// are Go duration strings; zero optional fields are left out.
type (
	headerJSON struct {
		Type     Type         `json:"type"`
		Version  int          `json:"version"`
		Name     string       `json:"name"`
		Workers  int          `json:"workers"`
		Duration sim.Duration `json:"duration,omitempty"`
		Env      *envJSON     `json:"env,omitempty"`
	}
	envJSON struct {
		Latency      *distJSON    `json:"latency,omitempty"`
		Loss         float64      `json:"loss,omitempty"`
		GCPause      *gcJSON      `json:"gc_pause,omitempty"`
		CrashPerHour float64      `json:"crash_per_hour,omitempty"`
		RestartAfter sim.Duration `json:"restart_after,omitempty"`
	}
	gcJSON struct {
		PerMinute float64      `json:"per_minute"`
		P50       sim.Duration `json:"p50"`
		P99       sim.Duration `json:"p99"`
		Max       sim.Duration `json:"max"`
	}
	distJSON struct {
		Kind  sim.DistKind  `json:"kind"`
		Min   sim.Duration  `json:"min"`
		Max   *sim.Duration `json:"max,omitempty"`
		Alpha float64       `json:"alpha,omitempty"`
	}
	eventJSON struct {
		Type         Type          `json:"type"`
		At           sim.Duration  `json:"at"`
		ID           string        `json:"id,omitempty"`
		Units        int           `json:"units,omitempty"`
		UnitTime     sim.Duration  `json:"unit_time,omitempty"`
		UnitTimeDist *distJSON     `json:"unit_time_dist,omitempty"`
		Worker       string        `json:"worker,omitempty"`
		Member       string        `json:"member,omitempty"`
		Duration     sim.Duration  `json:"duration,omitempty"`
		Spacing      *sim.Duration `json:"spacing,omitempty"`
		Down         sim.Duration  `json:"down,omitempty"`
	}
)

func headerWire(h Header) headerJSON {
	j := headerJSON{Type: TypeHeader, Version: h.Version, Name: h.Name, Workers: h.Workers, Duration: sim.Duration(h.Duration)}
	if h.Env != (Env{}) {
		e := h.Env
		j.Env = &envJSON{Latency: distWire(e.Latency), Loss: e.Loss, CrashPerHour: e.CrashPerHour,
			RestartAfter: sim.Duration(e.RestartAfter)}
		if p := e.GCPause; p != nil {
			j.Env.GCPause = &gcJSON{PerMinute: p.PerMinute, P50: sim.Duration(p.P50), P99: sim.Duration(p.P99), Max: sim.Duration(p.Max)}
		}
	}
	return j
}

func distWire(d *sim.Dist) *distJSON {
	if d == nil {
		return nil
	}
	j := &distJSON{Kind: d.Kind, Min: sim.Duration(d.Min), Alpha: d.Alpha}
	if d.Kind != sim.Fixed {
		hi := sim.Duration(d.Max)
		j.Max = &hi
	}
	return j
}

func eventWire(e Event) eventJSON {
	j := eventJSON{Type: e.Type, At: sim.Duration(e.At), ID: e.ID, Units: e.Units, UnitTime: sim.Duration(e.UnitTime),
		UnitTimeDist: distWire(e.UnitTimeDist), Worker: e.Worker, Member: e.Member, Duration: sim.Duration(e.Duration), Down: sim.Duration(e.Down)}
	if e.Type == TypeDeploy {
		spacing := sim.Duration(e.Spacing)
		j.Spacing = &spacing
	}
	return j
}
