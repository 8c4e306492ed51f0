package pipenet_test

import (
	"context"
	"io"
	"syscall"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/gohost/pipenet"
)

func TestDialAcceptAndRefuse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := pipenet.New()
		_, err := n.Dial(context.Background(), "srv:1")
		assert.ErrorIs(t, err, syscall.ECONNREFUSED, "no listener")
		l := n.Listen("srv:1")
		assert.Equal(t, "srv:1", l.Addr().String())
		go func() {
			c, err := l.Accept()
			if err == nil {
				_, _ = c.Write([]byte("hi"))
				c.Close()
			}
		}()
		c, err := n.Dial(context.Background(), "srv:1")
		require.NoError(t, err)
		got, err := io.ReadAll(c)
		require.NoError(t, err)
		assert.Equal(t, "hi", string(got))
		require.NoError(t, l.Close())
		_, err = l.Accept()
		assert.Error(t, err, "closed")
		_, err = n.Dial(context.Background(), "srv:1")
		assert.ErrorIs(t, err, syscall.ECONNREFUSED, "closed listener")
	})
}
