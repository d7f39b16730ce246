"""The command knowledge (shell/commands.jsonc) and the $safe-bash preset built on it.

$safe-bash is only as safe as the knowledge: each of its rules is read-only, so it matches a command
only when the analysis finds nothing but reads and no doubt. These tables say, command by command,
which forms are read-only (True) and which write, delete, run a program or talk to another machine
(False); the engine, not the table, decides, and the table checks it.
"""

from __future__ import annotations

import json
from pathlib import Path

import json5
import pytest
from helpers import CORPUS, REPO, Sandbox, bash

from policy_engine import Action, Engine
from policy_engine.analysis.shell.analysis import Analyzer
from policy_engine.analysis.shell.knowledge import DATA, Knowledge, compile_knowledge, knowledge

SAFE_BASH = REPO / "policy_engine" / "presets" / "patterns" / "safe-bash.jsonc"
SAMPLE = REPO / "tests" / "data" / "tldr-readonly-sample.jsonl"
TLDR = CORPUS / "tldr.txt"


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Knowledge:
    return knowledge(str(tmp_path_factory.mktemp("knowledge")))


@pytest.fixture(scope="module")
def analyzer(compiled: Knowledge) -> Analyzer:
    return Analyzer("/home/me", compiled)


@pytest.fixture(scope="module")
def safe_bash(tmp_path_factory: pytest.TempPathFactory) -> tuple[Engine, Path]:
    """An engine whose only rule is $safe-bash (anything else asks), on an isolated fake machine."""
    sandbox = Sandbox(tmp_path_factory.mktemp("safe-bash"))
    config = sandbox.write(
        "safe.jsonc",
        '{ "policies": { "p": { "defaultAction": "ask", "rules": [ "$safe-bash" ] } }, "defaultPolicy": "p" }',
    )
    work = sandbox.project("work")
    return sandbox.engine(config, cwd=work), work


def patterns() -> list[str]:
    return list(json5.loads(SAFE_BASH.read_text(encoding="utf-8"))["patterns"])


# ---- The data itself -------------------------------------------------------------------------------


def test_the_knowledge_compiles() -> None:
    data = compile_knowledge(Path(DATA).read_text(encoding="utf-8"))
    assert len(data["commands"]) >= 390


def test_a_module_judged_as_a_command_must_name_one() -> None:
    text = '{ "commands": { "python": { "interpreter": "python", "modules": { "pytest": "no-such" } } } }'
    with pytest.raises(ValueError, match="module 'pytest' is judged as 'no-such', which has no entry"):
        compile_knowledge(text)


def test_every_interpreters_pattern_names_an_interpreter(compiled: Knowledge) -> None:
    """$interpreters must only allow commands whose programs are analysed."""
    preset = json5.loads((SAFE_BASH.parent / "interpreters.jsonc").read_text(encoding="utf-8"))
    for pattern in preset["patterns"]:
        name = pattern.split(" ")[0]
        entry = compiled.entry(name)
        assert entry is not None, pattern
        if pattern.split(" ")[1:2] == ["eval"]:  # deno eval
            entry = entry["subcommands"]["eval"]
        assert entry.get("interpreter"), pattern


def test_every_safe_bash_pattern_names_a_known_command(compiled: Knowledge) -> None:
    found = patterns()
    assert len(found) == len(set(found)), "duplicate patterns"
    # The last pattern, "*", covers whatever the analysis proves only reads: the knowledge vets
    # each command then, so it is the one pattern that names none.
    assert found[-1] == "*"
    named = found[:-1]
    unknown = [p for p in named if compiled.entry(p.split(" ")[0]) is None]
    assert unknown == []
    # A first word with a wildcard (`* --help`) would reach commands no pattern names
    # (in a pattern only * and ? are wildcards: `[ *` names the test command).
    assert [p for p in named if any(c in p.split(" ")[0] for c in "*?")] == []


def test_the_patterns_pi_control_could_never_match_are_gone() -> None:
    found = set(patterns())
    gone = {"less *", "more *", "make -n *", "make --dry-run *", "npm outdated *", "npm info *", "npm view *"}
    gone |= {"env", "printenv"}  # they print every variable, secrets included: never without doubt
    assert not gone & found
    assert {"git status", "cat *", "find *", "bun pm ls *", "printenv *", "pip freeze"} <= found


def test_no_option_of_a_command_with_subcommands_relies_on_set(compiled: Knowledge) -> None:
    """Options parsed before a subcommand only add accesses and doubts: a "set" there is ignored,
    so a writing option must be a doubt (git config --unset)."""
    ignored = []

    def walk(name: str, entry: dict[str, object]) -> None:
        subcommands = entry.get("subcommands")
        if not isinstance(subcommands, dict):
            return
        options = entry.get("options", {})
        assert isinstance(options, dict)
        ignored.extend(
            f"{name} {o}" for o, spec in options.items() if isinstance(spec, dict) and spec.get("set")
        )
        for sub, value in subcommands.items():
            walk(f"{name} {sub}", value)

    for name, entry in compiled.commands.items():
        walk(name, entry)
    assert ignored == []


# ---- Read-only or not, command by command ----------------------------------------------------------

READ_ONLY = [
    # coreutils and friends
    ("cat README.md", True),
    ("nl -ba file.txt", True),
    ("nl -v 10 -i 5 file.txt", True),
    ("tac log.txt", True),
    ("look prefix words.txt", True),
    ("look -t x prefix words.txt", True),
    ("pr -h Title -l 40 file.txt", True),
    ("tsort deps.txt", True),
    ("factor 42", True),
    ("expr 1 + 2", True),
    ("printenv HOME", True),
    ("uname -a", True),
    ("stat -c %s file", True),
    ("sort data.txt", True),
    ("sort -o out data.txt", False),
    ("sort --outp=x data", False),
    ("sort --compress-program=gzip big", False),
    ("uniq in.txt", True),
    ("uniq in.txt out.txt", False),
    ("xxd file.bin", True),
    ("xxd in out", False),
    ("xxd -r hex.txt out.bin", False),
    ("ptx words.txt", True),
    ("ptx -G in.txt out.txt", False),
    ("bc -l calc.txt", True),
    ("dc -e '2 2 + p'", False),
    ("mktemp", False),
    ("mktemp -u", True),
    ("sync", False),
    ("rename 's/a/b/' *.txt", False),
    ("rename -n 's/a/b/' *.txt", False),
    ("stty -a", True),
    ("stty raw", False),
    ("tput cols", True),
    ("md5sum file", True),
    ("sha256sum -c sums.txt", True),
    ("b3sum file", True),
    ("rhash --sha1 file", True),
    ("rhash -o sums.txt file", False),
    ("rhash --update=sums.txt dir", False),
    # listing and searching
    ("ls -L /etc", True),
    ("find . -name x", True),
    ("find . -delete", False),
    ("find . -name '*.py' -exec rm {} +", False),
    ("find . -fprint out.txt", False),
    ("grep -rn TODO", True),
    ("rg foo", True),
    ("rg --pre cat x", False),
    ("rg --pre=cat x", False),
    ("fd -e py -x rm", False),
    ("lsattr", True),
    ("git grep --no-index secret /etc", True),
    ("ltrace --output log.txt file ./prog", False),
    ("lsattr -d /etc", True),
    # text and data
    ("column -t data.tsv", True),
    ("diff3 a b c", True),
    ("diff3 --diff-program=evil a b c", False),
    ("sdiff a b", True),
    ("sdiff -o merged a b", False),
    ("colordiff -u a b", True),
    ("difft a b", True),
    ("patch -p1 -i fix.patch", False),
    ("patch --dry-run -p1 -i fix.patch", False),
    ("xmlstarlet sel -t -v //title doc.xml", True),
    ("xml sel -t -m //item -v @id -n doc.xml", True),
    ("xml ed -L -u //a -v 1 doc.xml", False),
    ("xml ed -u //a -v 1 doc.xml", True),
    ("xmlstarlet val -e doc.xml", True),
    ("xml fo doc.xml", True),
    ("xml el -u doc.xml", True),
    ("xml tr style.xsl doc.xml", False),
    ("csvlook data.csv", True),
    ("csvcut -c 1,3 data.csv", True),
    ("csvgrep -c name -m bob data.csv", True),
    ("csvstat --mean data.csv", True),
    ("csvsort -c age data.csv", True),
    ("csvjson data.csv", True),
    ("in2csv data.xlsx", True),
    ("in2csv --write-sheets - book.xlsx", False),
    ("csvsql data.csv", True),
    ("csvsql --query 'select 1' data.csv", False),
    ("csvsql --db sqlite:///x.db --insert data.csv", False),
    ("mlr --icsv --ojson cat data.csv", False),
    ("jq .name package.json", True),
    ("jq -r --arg x 1 .a f.json", True),
    ("yq -i '.a = 1' f.yaml", False),
    ("hexyl -n 64 file.bin", True),
    ("xmllint --format doc.xml", True),
    ("xmllint --xinclude doc.xml", False),
    ("xmllint --shell doc.xml", False),
    ("shellcheck script.sh", True),
    ("shellcheck -s bash script.sh", True),
    ("shellcheck -x -s bash script.sh", False),  # -x reads the files the script sources: names from data
    ("ruff check .", True),  # its own cache (.ruff_cache) is not counted as a write
    ("ruff check --no-cache .", True),
    ("ruff check -n --fix .", False),
    ("ruff check -n -o report.txt .", False),
    ("ruff format --check .", True),
    ("ruff format --check --no-cache .", True),
    ("ruff format -n .", False),
    ("ruff rule F401", True),
    # archives
    ("tar -tzf x.tgz", True),
    ("tar xzf x.tgz", False),
    ("unzip -l a.zip", True),
    ("unzip a.zip", False),
    ("zipinfo a.zip", True),
    ("zip out.zip a b", False),
    ("zip -d /etc/x.zip m", False),
    ("7z l archive.7z", True),
    ("7za t archive.7z", True),
    ("7z x archive.7z -oout", False),
    ("7z a archive.7z dir", False),
    ("unrar l a.rar", False),  # Debian's unrar-free reads `l` as an archive's name and extracts it
    ("unrar x a.rar dest/", False),
    ("ar t libx.a", True),
    ("ar x libx.a", False),
    ("ar rcs libx.a a.o", False),
    ("jar tf app.jar", True),
    ("jar xf app.jar", False),
    ("jar cf app.jar dir", False),
    ("cpio -it < a.cpio", True),
    ("cpio -idv < a.cpio", False),
    ("gzip -l a.gz", True),
    ("gzip a", False),
    ("lsar a.zip", True),
    ("unar a.zip", False),
    # system information
    ("findmnt", True),
    ("findmnt -t ext4 -o TARGET,SOURCE", True),
    ("findmnt --tab-file /etc/fstab", True),
    ("mount", True),
    ("mount -l -t ext4", True),
    ("mount /dev/sdb1 /mnt", False),
    ("mount -a", False),
    ("mount -L data /mnt/data", False),
    ("umount /mnt", False),
    ("blkid", True),
    ("blkid /dev/sda1", True),
    ("blkid -g", False),
    ("blkid -w cache.tab", False),
    ("free -h", True),
    ("free -s 2 -c 3", True),
    ("top -b -n 1", True),
    ("top", False),
    ("top -n 1", False),
    ("htop", False),
    ("iotop -b -n 2", True),
    ("iotop", False),
    ("pstree -p", True),
    ("pstree -H 1 -p", True),
    ("iostat -x 1 3", True),
    ("mpstat -P ALL 1 2", True),
    ("sar -u 1 3", True),
    ("sar -o data.sa 1 3", False),
    ("pidstat -p 1 1", True),
    ("pidstat -e sleep 1", False),
    ("lslogins", True),
    ("lslogins -u -o USER,UID", True),
    ("getent passwd root", True),
    ("getent group", True),
    ("getent hosts", True),
    ("getent hosts example.com", False),
    ("timedatectl", True),
    ("timedatectl status", True),
    ("timedatectl list-timezones", True),
    ("timedatectl set-timezone UTC", False),
    ("timedatectl -H server status", False),
    ("lsns", True),
    ("lsns -t net", True),
    ("lsipc", True),
    ("ipcs -a", True),
    ("ipcrm -m 1", False),
    ("lslocks", True),
    ("lsmem --summary", True),
    ("lshw -short", True),
    ("lshw -class disk", True),
    ("lshw -dump out.db", False),
    ("dmidecode -t memory", True),
    ("dmidecode --dump-bin out.bin", False),
    ("sensors", True),
    ("sensors -s", False),
    ("lastlog -u root", True),
    ("lastlog -C -u x", False),
    ("pmap -x 1", True),
    ("pwdx 1", True),
    ("slabtop -o", True),
    ("sysctl -a", True),
    ("sysctl kernel.hostname", False),
    ("sysctl -w net.ipv4.ip_forward=1", False),
    ("sysctl -p /etc/sysctl.conf", False),
    ("modinfo ext4", True),
    ("modprobe dummy", False),
    ("fuser -v /tmp", True),
    ("fuser -k 8080/tcp", False),
    ("killall -l", True),
    ("killall nginx", False),
    ("pkill -f server", False),
    ("atq", True),
    ("crontab -l", True),
    ("crontab -e", False),
    ("crontab -r", False),
    ("crontab -l -r", False),
    ("crontab jobs.txt", False),
    ("tmux ls", True),
    ("tmux list-windows -t main", True),
    ("tmux ls -F '#(id)'", False),
    ("tmux new -s x", False),
    ("tmux -f evil.conf ls", False),
    ("screen -ls", False),
    ("systemctl status nginx", True),
    ("systemctl status nginx -H host", False),
    ("systemctl restart nginx", False),
    ("journalctl -u nginx -n 50", True),
    ("journalctl --vacuum-size=1G", False),
    ("localectl", True),
    ("localectl set-locale LANG=C", False),
    ("loginctl list-sessions", True),
    ("loginctl terminate-user bob", False),
    ("busctl list", True),
    ("busctl call a b c d", False),
    ("hostnamectl", True),
    ("hostnamectl hostname new", False),
    ("uptime", True),
    ("w", True),
    ("id -u", True),
    # binaries
    ("ldd /bin/ls", False),
    ("objdump -d -M intel a.out", True),
    ("readelf -h a.out", True),
    ("readelf -x .text a.out", True),
    ("nm -C a.out", True),
    ("nm --plugin evil.so a.out", False),
    ("size a.out", True),
    ("strip a.out", False),
    # network: talking to another machine is never read-only
    ("ping -c 1 example.com", False),
    ("traceroute example.com", False),
    ("mtr -r example.com", False),
    ("nslookup example.com", False),
    ("host example.com", False),
    ("whois example.com", False),
    ("dig example.com", False),
    ("nmap -sV host", False),
    ("curl https://example.com", False),
    ("http GET example.com", False),
    ("ssh-keyscan github.com", False),
    ("socat - TCP:host:80", False),
    ("tcpdump -i eth0", False),
    ("finger bob@example.com", False),
    ("ip addr", True),
    ("ip a", True),
    ("ip -br a", True),
    ("ip -4 addr show dev eth0", True),
    ("ip route", True),
    ("ip r get 1.1.1.1", True),
    ("ip -s link", True),
    ("ip neigh show", True),
    ("ip addr add 10.0.0.1/24 dev eth0", False),
    ("ip link set eth0 down", False),
    ("ip route del default", False),
    ("ip netns list", True),
    ("ip netns exec ns1 ls", True),
    ("ip netns exec ns1 rm -rf x", False),
    ("ip netns add ns1", False),
    ("ip -n ns1 addr", True),  # ip -netns NS address show: a query in a namespace
    ("ifconfig", True),
    ("ifconfig eth0", True),
    ("ifconfig eth0 down", False),
    ("route -n", True),
    ("route add default gw 10.0.0.1", False),
    ("arp -a", True),
    ("arp -d 10.0.0.1", False),
    ("nmcli", True),
    ("nmcli c show", True),
    ("nmcli dev status", True),
    ("nmcli d wifi list", True),
    ("nmcli c up home", False),
    ("nmcli -s c show home", False),
    ("nmcli radio wifi off", False),
    ("nmcli networking connectivity check", False),
    ("resolvectl status", True),
    ("resolvectl query example.com", False),
    ("resolvectl dns eth0 1.1.1.1", False),
    ("iptables -L -n", True),
    ("iptables -t nat -S", True),
    ("iptables -A INPUT -j DROP", False),
    ("iptables -L -F", False),
    ("nft list ruleset", True),
    ("nft add rule x", False),
    ("ufw status", True),
    ("ufw allow 22", False),
    ("ss -tlnp", True),
    ("ssh-keygen -l -f key.pub", True),
    ("ssh-keygen -t ed25519 -f key", False),
    ("ssh-keygen -R github.com", False),
    ("ssh-add -l", True),
    ("ssh-add key", False),
    # version control
    ("git log --oneline", True),
    ("git diff -- src/a.py", True),
    ("git checkout -- src/a.py", False),
    ("git submodule foreach ls", False),
    ("git rebase --exec 'make test' HEAD~3", False),
    ("printenv OPENAI_API_KEY", False),
    ("npm test --script-shell=./sh", False),
    ("git log --output=x", False),
    ("git diff --no-index a b", True),
    ("git branch", True),
    ("git branch -D x", False),
    ("git tag", True),
    ("git tag -d v1", False),
    ("git remote -v", True),
    ("git remote add o url", False),
    ("git stash list", True),
    ("git stash", False),
    ("git show-branch", True),
    ("git for-each-ref --format='%(refname)'", True),
    ("git name-rev HEAD", True),
    ("git diff-tree --stat HEAD", True),
    ("git range-diff a...b", True),
    ("git cherry -v", True),
    ("git annotate file", True),
    ("git check-mailmap 'A <a@b>'", True),
    ("git fsck", True),
    ("git fsck --lost-found", False),
    ("git hash-object file", True),
    ("git hash-object -w file", False),
    ("git symbolic-ref HEAD", True),
    ("git symbolic-ref HEAD refs/heads/x", False),
    ("git notes list", True),
    ("git notes add -m x", False),
    ("git bisect log", True),
    ("git bisect start", False),
    ("git sparse-checkout list", True),
    ("git lfs ls-files", True),
    ("git lfs pull", False),
    ("git submodule", True),
    ("git submodule update --init", False),
    ("git help -a", True),
    ("git help log", True),  # man: a pager only on a terminal (an agent that types into it: asked)
    ("git help -w log", False),
    ("git -c core.pager=evil log", False),
    # A query of a remote service the knowledge proves reads only is read-only (gh, npm view,
    # kubectl get, helm list: shell/commands.d/remote.jsonc); one that returns secrets is not.
    ("gh pr list", True),
    ("gh auth token", False),
    # packages
    ("npm ls", True),
    ("npm ls --depth 0", True),
    ("npm ls --logs-dir logs", False),
    ("npm run", True),
    ("npm run build", False),
    ("npm version", True),
    ("npm version patch", False),
    ("npm install", False),
    ("npm view react", True),
    ("npm outdated", True),
    ("npm config get registry", True),
    ("npm pkg get name", True),
    ("npm pkg set name=x", False),
    ("npm query .dev", True),
    ("pnpm list", True),
    ("pnpm why react", True),
    ("pnpm outdated", True),
    ("pnpm install", False),
    ("yarn list", True),
    ("yarn", False),
    ("pip list", True),
    ("pip list --outdated", False),
    ("pip list --log out.txt", False),
    ("pip --log log.txt list", False),
    ("pip show requests", True),
    ("pip freeze", True),
    ("pip freeze -r req.txt", True),
    ("pip install x", False),
    ("pip config list", True),
    ("pip config set global.x y", False),
    ("pip cache dir", True),
    ("pip cache purge", False),
    ("pip download x", False),
    ("pip list --python /usr/bin/python3", False),
    ("uv version", True),
    ("uv self version", True),
    ("uv pip list", False),
    ("uv sync", False),
    ("uv cache dir", True),
    ("uv cache clean", False),
    ("poetry show", False),
    ("conda list", True),
    ("conda list -n base", True),
    ("conda info --envs", True),
    ("conda info --unsafe-channels", False),
    ("conda env list", True),
    ("conda env export", True),
    ("conda env export -f env.yml", False),
    ("conda config --show", True),
    ("conda config --set x y", False),
    ("conda install numpy", False),
    ("conda search numpy", False),
    ("mamba list", True),
    ("cargo version", True),
    ("cargo tree", False),
    ("cargo metadata", False),
    ("cargo build", False),
    ("cargo locate-project", True),
    ("cargo search serde", False),
    ("go version", True),
    ("go env GOPATH", True),
    ("go env -w GOPROXY=x", False),
    ("go list ./...", True),
    ("go build", False),
    ("gofmt -l .", True),
    ("gofmt -w .", False),
    ("rustup show", True),
    ("rustup toolchain list", True),
    ("rustup target list --installed", True),
    ("rustup component list", True),
    ("rustup default", True),
    ("rustup default stable", False),
    ("rustup update", False),
    ("rustup doc --path", True),
    ("rustup doc", False),
    ("brew list", True),
    ("brew --prefix", True),
    ("brew --prefix node", True),
    ("brew config", True),
    ("brew info node", False),
    ("brew install node", False),
    ("brew services list", True),
    ("apt list --installed", True),
    ("apt show curl", True),
    ("apt-cache policy curl", True),
    ("apt-cache search curl", True),
    ("apt install curl", False),
    ("apt-get update", False),
    ("apt -o APT::Update::Pre-Invoke::=x list", False),
    ("dpkg -l", True),
    ("dpkg -L curl", True),
    ("dpkg -S /bin/ls", True),
    ("dpkg -i x.deb", False),
    ("dpkg -r curl", False),
    ("dpkg -x x.deb out", False),
    ("dpkg-query -W -f '${Package}\\n'", True),
    ("rpm -qa", True),
    ("rpm -qi bash", True),
    ("rpm -ql bash", True),
    ("rpm -qf /bin/ls", True),
    ("rpm -i x.rpm", False),
    ("rpm -Uvh x.rpm", False),
    ("rpm -e bash", False),
    ("rpm --eval '%(id)'", False),
    ("dnf list installed", False),
    ("dnf history", True),
    ("yum install x", False),
    ("pacman -Q", True),
    ("pacman -Qi bash", True),
    ("pacman -Ss vim", True),
    ("pacman -Si vim", True),
    ("pacman -S vim", False),
    ("pacman -Syu", False),
    ("pacman -Rs vim", False),
    ("pacman -Sc", False),
    ("snap list", True),
    ("snap info x", False),
    ("snap install x", False),
    ("flatpak list", True),
    ("flatpak info org.x", True),
    ("flatpak install org.x", False),
    ("flatpak run org.x", False),
    ("gem list", True),
    ("gem list --remote", False),
    ("gem install x", False),
    ("dotnet --info", True),
    ("dotnet build", False),
    ("make -n", False),
    # containers and clusters
    ("docker ps -a", True),
    ("docker images", True),
    ("docker logs -f web", True),
    ("docker inspect web", True),
    ("docker run --rm alpine", False),
    ("docker exec web ls", False),
    ("docker -H ssh://x ps", False),
    ("docker --context remote ps", False),
    ("docker volume ls", True),
    ("docker network inspect x", True),
    ("docker system df", True),
    ("docker system prune", False),
    ("docker context ls", True),
    ("docker context use x", False),
    ("docker container ls", True),
    ("docker container rm x", False),
    ("docker image ls", True),
    ("docker image rm x", False),
    ("docker compose ps", True),
    ("docker compose config", False),
    ("docker compose up", False),
    ("docker buildx ls", True),
    ("podman ps", True),
    ("podman ps --remote", False),
    ("podman images", True),
    ("podman pod ps", True),
    ("podman machine list", True),
    ("podman run alpine", False),
    ("kubectl get pods", True),
    ("kubectl describe pod x", True),
    ("kubectl logs x", True),
    ("kubectl get secret x -o yaml", False),
    ("kubectl version --client", True),
    ("kubectl version", True),
    ("kubectl config view", True),
    ("kubectl config view --raw", False),
    ("kubectl config current-context", True),
    ("kubectl config use-context x", False),
    ("kubectl apply -f x.yaml", False),
    ("kubectl completion bash", True),
    ("helm version", True),
    ("helm lint ./chart", True),
    ("helm repo list", True),
    ("helm list", True),
    ("helm template ./chart", False),
    ("helm install x ./chart", False),
    ("terraform version", True),
    ("terraform workspace show", True),
    ("terraform plan", False),
    ("terraform validate", False),
    ("terraform fmt -check", False),
    ("tofu version", True),
]


@pytest.mark.parametrize(("line", "read_only"), READ_ONLY, ids=[line for line, _ in READ_ONLY])
def test_read_only(analyzer: Analyzer, line: str, read_only: bool) -> None:
    atoms = analyzer.atoms(line, "/p")
    found = all(atom.read_only for atom in atoms)
    assert found is read_only, [(a.command, [str(x) for x in a.accesses], a.doubts) for a in atoms]


def test_the_table_is_large() -> None:
    assert len(READ_ONLY) >= 150
    assert len({line for line, _ in READ_ONLY}) == len(READ_ONLY)


# ---- What $safe-bash must never allow --------------------------------------------------------------

# `tool [words] --help` is judged read-only whatever the words, so $safe-bash has no `* --help`
# pattern and no pattern for a tool that runs its words despite --help.
NEVER_ALLOWED = [
    "bash -c 'touch x' --help",
    'python3 -c \'open("x", "w")\' --version',
    "ip netns exec ns1 sh -c 'touch x' --help",
    "ip -s netns exec ns1 sh -c 'rm -f x' --help",
    "unzip a.zip inner.txt --help",
    "fd -x rm --help",
    "pidstat -e sh -c id --help",
    "xml ed -L -u //a -v 1 doc.xml --help",
    "tmux new-session 'touch x' --help",
    "busctl --address=unixexec:path=/bin/sh,argv1=-c,argv2=id",
    "loginctl user-status",
    "sort -o out data.txt",
    "git branch -D main",
    "pip list --outdated",
    "kubectl get secret x -o yaml",
    "docker -H ssh://host ps",
    "npm run build",
    "tar -xf a.tar",
    "tar -tf host:archive.tar",
    "yarn add left-pad",
    "cargo tree",
    "gofmt -w main.go --help",
    "go env -u GOFLAGS --help",
    "ifconfig eth0 down --help",
    "ltrace --output log.txt file ./prog",
    "git config --unset user.name",
]

# Words after a redirect are still the command's arguments (`find . 2>/dev/null -delete`): the grammar
# files them under the redirect, and the walk gives them back to the command.
AFTER_A_REDIRECT = [
    "find . 2>/dev/null -delete",
    "env 2>/dev/null rm -rf x",
    "git log 2>/dev/null --output=/tmp/x",
]


@pytest.mark.parametrize("line", [*NEVER_ALLOWED, *AFTER_A_REDIRECT])
def test_safe_bash_never_allows(safe_bash: tuple[Engine, Path], line: str) -> None:
    engine, work = safe_bash
    assert engine.evaluate(bash(line, work)).action is not Action.ALLOW


# ---- How much of real read-only use $safe-bash covers ------------------------------------------------

# Lines of tldr.txt labelled by hand (tests/data/tldr-readonly-sample.jsonl). A floor, so that the
# coverage cannot silently regress; raise it when the knowledge grows.
ALLOWED_READ_ONLY_FLOOR = 115  # of 164 read-only lines: 70%
ALLOWED_SHARE_FLOOR = 0.70
# Lines labelled not read-only that $safe-bash may allow, each with the reason it is acceptable.
JUSTIFIED: dict[str, str] = {
    "exit": "it ends the shell of the agent's tool call; it reads, writes and runs nothing",
    "OPTIND=1": "it sets a shell variable of the tool call's own shell (getopts' index), which ends with it",
    "read variable": "it sets a shell variable of the tool call's own shell from its input, which ends with it",
    "ruff check --select ALL": "ruff writes only its own cache (.ruff_cache), which holds nothing that runs",
}
# The sample was labelled when a query of another machine was never read-only; a query of a remote
# service that the knowledge proves reads only now is (shell/commands.d/remote.jsonc).
REMOTE_QUERY = "it queries a remote service and changes nothing there or here"
JUSTIFIED |= {
    line: REMOTE_QUERY
    for line in (
        "gcloud container clusters describe cluster_name",
        "gh release view tag",
        "kubectl describe nodes node_name --namespace namespace",
        "npm s term1 term2",
        "pnpm outdated --long",
    )
}


@pytest.mark.skipif(not TLDR.exists(), reason=f"no corpus at {TLDR}")
def test_safe_bash_on_the_tldr_sample(safe_bash: tuple[Engine, Path]) -> None:
    engine, work = safe_bash
    lines = TLDR.read_text(encoding="utf-8").split("\n")
    rows = [json.loads(row) for row in SAMPLE.read_text(encoding="utf-8").splitlines() if row.strip()]
    read_only = [row for row in rows if row["read_only"]]
    allowed = []
    wrongly_allowed = []
    for row in rows:
        line = lines[row["line"] - 1]
        if engine.evaluate(bash(line, work)).action is not Action.ALLOW:
            continue
        (allowed if row["read_only"] else wrongly_allowed).append(line)
    share = len(allowed) / len(read_only)
    print(
        f"\n$safe-bash allows {len(allowed)} of {len(read_only)} read-only sample lines ({share:.1%}) "
        f"and {len(wrongly_allowed)} of {len(rows) - len(read_only)} lines that are not read-only"
    )
    assert len(allowed) >= ALLOWED_READ_ONLY_FLOOR
    assert share >= ALLOWED_SHARE_FLOOR
    assert [line for line in wrongly_allowed if line not in JUSTIFIED] == []
