predict --format json
