/* Another build of libgame.so (same name, new code): its functions sit elsewhere, so an address
   of one build names a different function in the other. */
static volatile int sink;

__attribute__((noinline)) int spawn_enemies(int count) {
  int total = 0;
  for (int i = 0; i < count; i++) total += i * 7 + (sink ^ i);
  sink = total;
  return total;
}

__attribute__((noinline)) static int physics_step(int dt) {
  int *nothing = 0;
  if (dt > 2) return *nothing; /* crash here */
  return dt * 2 + spawn_enemies(dt);
}

__attribute__((noinline)) int update_world(int dt) {
  sink = dt;
  return physics_step(dt) + 1;
}

__attribute__((noinline)) int game_loop(int frames) {
  int total = 0;
  for (int i = 0; i < frames; i++) total += update_world(i);
  return total;
}
