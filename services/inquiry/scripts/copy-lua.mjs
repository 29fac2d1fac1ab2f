// The build's copy step (src/lua → dist/lua, include/ too), shared with @hitl/store.
import { copyLuaFiles } from '@hitl/store';

copyLuaFiles(new URL('../', import.meta.url));
