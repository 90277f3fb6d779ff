# tools/cli: the `advshim` command.
CLI_SRCS	:= $(wildcard tools/cli/*.c)
CLI_OBJS	:= $(CLI_SRCS:%.c=$(OBJ)/%.o)
CLI_BIN		:= $(BUILD)/advshim
TARGETS		+= $(CLI_BIN)

$(OBJ)/tools/cli/cmd_run.o: EXTRA_CFLAGS += -DADVSHIM_LIBDIR='"$(LIBDIR)"'

# libadvwatch.a (tools/watch) only for watch_conf: `check` validates the
# watch group too.  Named literally: that fragment is included after this.
$(CLI_BIN): $(CLI_OBJS) $(BUILD)/libadvwatch.a $(POLICY_LIB) $(COMMON_LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(CONFIG_LIBS)
