# tools/cli: the `advshim` command.
CLI_SRCS	:= $(wildcard tools/cli/*.c)
CLI_OBJS	:= $(CLI_SRCS:%.c=$(OBJ)/%.o)
TARGETS		+= $(CLI_BIN)

$(OBJ)/tools/cli/cmd_run.o: EXTRA_CFLAGS += -DADVSHIM_LIBDIR='"$(LIBDIR)"'

# libadvwatch.a (tools/watch) only for watch_conf: `check` validates the
# watch group too.
$(CLI_BIN): $(CLI_OBJS) $(WATCH_LIB) $(POLICY_LIB) $(COMMON_LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(CONFIG_LIBS)
