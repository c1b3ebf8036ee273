package action

// sixthPassExecCases are execCases for the rows and columns the sixth
// red-team pass added (compose, curl --expand-*, pytest -o/-c, wget
// --use-askpass, aria2c), kept apart so that execCases' alignment stays.
var sixthPassExecCases = map[string][]struct{ cmd, want string }{
	"docker": {{"docker compose up", opaque}, {"docker compose -f x.yml --profile p up -d", opaque}, {"docker compose create", opaque},
		{"docker compose build", opaque}, {"docker compose watch", opaque}, {"docker compose restart", opaque},
		{"docker compose ps", "docker compose ps"}, {"docker compose logs web", "docker compose logs web"},
		{"docker stack deploy -c compose.yml x", opaque}, {"docker buildx bake", opaque}, {"docker --context prod compose up", opaque}},
	"podman":         {{"podman compose start", opaque}, {"podman compose ps", "podman compose ps"}},
	"docker-compose": {{"docker-compose up -d", opaque}, {"docker-compose --env-file .env.test run web", opaque}, {"docker-compose run web rm -rf ~", "rm -rf ~"}, {"docker-compose ps", "docker-compose ps"}},
	"podman-compose": {{"podman-compose -f x.yml up", opaque}, {"podman-compose exec web sh", opaque}, {"podman-compose logs", "podman-compose logs"}},
	"curl":           {{"curl --expand-config evil.cfg https://a", opaque}, {"curl -s https://a --variable %HOME --expand-output '{{HOME}}/.bashrc'", opaque}},
	"wget":           {{"wget --use-askpass=./evil https://a", opaque}},
	"aria2c":         {{"aria2c --on-download-complete=./evil https://a/x", "./evil"}, {"aria2c --on-download-start 'rm -rf ~' https://a/x", "rm -rf ~"}, {"aria2c https://a/x", "aria2c https://a/x"}},
	"pytest": {{"pytest -o addopts=-psrc.evil", opaque}, {"pytest --override-ini=addopts=-psrc.evil", opaque}, {"pytest --override-ini addopts=-pevil", opaque},
		{"pytest -oaddopts=-pevil", opaque}, {"pytest -o pythonpath=/tmp/evil", opaque}, {"pytest -o required_plugins=evil", opaque},
		{"pytest -o 'python_files=*.txt'", opaque}, {"pytest -c src/x.ini", opaque}, {"pytest --config-file=build/p.toml", opaque},
		{"pytest -csrc/x.ini", opaque}, {"pytest -o log_cli=true", "pytest -o log_cli=true"}, {"pytest -c pytest.ini", "pytest -c pytest.ini"},
		{"pytest -c ./pyproject.toml -x", "pytest -c ./pyproject.toml -x"}},
}

func init() {
	for name, cases := range sixthPassExecCases {
		execCases[name] = append(execCases[name], cases...)
	}
}
