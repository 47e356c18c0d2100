module planwright.dev/gotemplate-oracle-core

go 1.26
