module planwright.dev/yaml-oracle

go 1.26

require gopkg.in/yaml.v2 v2.3.0
