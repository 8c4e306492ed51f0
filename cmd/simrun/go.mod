module github.com/leasesim/leasesim/cmd/simrun

go 1.26.0

require (
	github.com/anishathalye/porcupine v1.3.1
	github.com/google/renameio/v2 v2.0.2
	github.com/leasesim/leasesim v0.0.0
	github.com/leasesim/leasesim/zoo/etcdraft v0.0.0
	github.com/schollz/progressbar/v3 v3.19.1
	github.com/spf13/cobra v1.10.2
	github.com/spf13/pflag v1.0.9
	github.com/stretchr/testify v1.12.1
	golang.org/x/term v0.47.0
)

require (
	github.com/HdrHistogram/hdrhistogram-go v1.4.0 // indirect
	github.com/go-json-experiment/json v1.27.2 // indirect
	github.com/gogo/protobuf v1.3.2 // indirect
	github.com/golang/protobuf v1.5.4 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/mitchellh/colorstring v0.0.0-20190213212951-d06e56a500db // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	go.etcd.io/raft/v3 v3.6.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sys v0.49.0 // indirect
	google.golang.org/protobuf v1.33.0 // indirect
)

replace (
	github.com/leasesim/leasesim => ../..
	github.com/leasesim/leasesim/zoo/etcdraft => ../../zoo/etcdraft
)
