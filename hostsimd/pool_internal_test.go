package hostsimd

import (
	"testing"
	"time"
)

// receive hands over a task sent while it polls and one sent after it has
// parked (past spinWait), and reports a closed channel.
func TestReceivePollsThenParks(t *testing.T) {
	ch := make(chan task, 1)
	got := make(chan int, 2)
	go func() {
		for {
			tk, ok := receive(ch)
			if !ok {
				close(got)
				return
			}
			got <- tk.lo
		}
	}()
	ch <- task{lo: 1} // picked up while polling
	if v := <-got; v != 1 {
		t.Fatalf("got %d, want 1", v)
	}
	time.Sleep(3 * spinWait) // the receiver has parked
	ch <- task{lo: 2}
	// A parked receiver that never wakes hangs here until go test's
	// -timeout, which then prints every goroutine: a bound of our own
	// would depend on how loaded the machine is.
	if v := <-got; v != 2 {
		t.Fatalf("got %d, want 2", v)
	}
	close(ch)
	if _, ok := <-got; ok {
		t.Fatal("receive did not report the closed channel")
	}
}

// split.wait returns only once every range has finished, both when they
// finish while it polls and when they finish after it has blocked.
func TestSplitWait(t *testing.T) {
	for _, after := range []time.Duration{0, 3 * spinWait} {
		var s split
		s.left.Add(2)
		s.wg.Add(2)
		done := make(chan struct{})
		go func() {
			s.finish()
			time.Sleep(after)
			s.finish()
		}()
		go func() {
			s.wait()
			close(done)
		}()
		<-done // a wait that never returns hangs until go test's -timeout
		if s.left.Load() != 0 {
			t.Fatalf("after %v: wait returned with %d ranges left", after, s.left.Load())
		}
	}
}
