package pipenet_test

import (
	"context"
	"fmt"
	"io"

	"github.com/leasesim/leasesim/gohost/pipenet"
)

func Example() {
	n := pipenet.New()
	l := n.Listen("store:7001")
	go func() {
		c, _ := l.Accept()
		_, _ = c.Write([]byte("ok"))
		c.Close()
	}()
	c, err := n.Dial(context.Background(), "store:7001")
	if err != nil {
		fmt.Println(err)
		return
	}
	reply, _ := io.ReadAll(c)
	fmt.Println(string(reply))
	// Output: ok
}
