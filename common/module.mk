# common/: small helpers shared by the tools (not by the shim's hot paths).
COMMON_SRCS	:= $(wildcard common/*.c)
COMMON_OBJS	:= $(COMMON_SRCS:%.c=$(OBJ)/%.o)
COMMON_LIB	:= $(BUILD)/libadvcommon.a

$(COMMON_LIB): $(COMMON_OBJS)
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^
