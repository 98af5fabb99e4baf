void csb_placeholder(void) {}
