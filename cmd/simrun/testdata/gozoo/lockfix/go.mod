module github.com/leasesim/leasesim/cmd/simrun/testdata/gozoo/lockfix

go 1.26.0

require github.com/leasesim/leasesim v0.0.0

require (
	github.com/HdrHistogram/hdrhistogram-go v1.4.0 // indirect
	github.com/anishathalye/porcupine v1.3.1 // indirect
	github.com/go-json-experiment/json v1.27.2 // indirect
	github.com/google/renameio/v2 v2.0.2 // indirect
)

replace github.com/leasesim/leasesim => ../../../../..
