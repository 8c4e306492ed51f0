module github.com/leasesim/leasesim/zoo/etcdraft

go 1.26.0

require (
	github.com/leasesim/leasesim v0.0.0
	github.com/stretchr/testify v1.12.1
	go.etcd.io/raft/v3 v3.6.0
)

require (
	github.com/HdrHistogram/hdrhistogram-go v1.4.0 // indirect
	github.com/anishathalye/porcupine v1.3.1 // indirect
	github.com/go-json-experiment/json v1.27.2 // indirect
	github.com/gogo/protobuf v1.3.2 // indirect
	github.com/golang/protobuf v1.5.4 // indirect
	github.com/google/renameio/v2 v2.0.2 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	google.golang.org/protobuf v1.33.0 // indirect
)

replace github.com/leasesim/leasesim => ../..
